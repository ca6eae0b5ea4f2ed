import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402
import spacy_globalner  # noqa: E402,F401  (registers every factory and function)

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real corpora in ../shared/data (present here and in CI)."""
    if not SHARED_DATA.exists():
        pytest.skip(f"{SHARED_DATA} is not present")
    return SHARED_DATA
