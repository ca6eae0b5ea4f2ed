"""Helpers the tests import (not tests themselves): paths, small trained
pipelines, brute-force references."""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
