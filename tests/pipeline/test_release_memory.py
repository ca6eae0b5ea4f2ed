"""`spacy-globalner.release_memory.v1`, the `[training.before_update]` callback
the transformer configs ship: it hands freed heap pages back to the system
before every N-th update, and refuses an N that is not a whole number >= 1."""
import re
from pathlib import Path

import pytest
from spacy.util import load_config, registry

from spacy_globalner.pipeline import release_memory
from spacy_globalner.pipeline.release_memory import make_release_memory, release_freed_memory
from tests.helpers import REPO_ROOT

CONFIGS = REPO_ROOT / "configs"


def resident_mib() -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path("/proc/self/status").read_text()).group(1)) // 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists() or not release_freed_memory(),
                    reason="glibc's malloc_trim and /proc are Linux's")
def test_freed_heap_pages_go_back_to_the_system():
    """Free 15 of every 16 blocks of a fragmented heap: the allocator keeps
    the pages until they are released."""
    blocks = [bytearray(64 * 1024) for _ in range(4000)]  # 250 MiB of heap, below mmap's threshold
    for block in blocks:
        block[::4096] = b"x" * len(block[::4096])  # touch every page
    kept = blocks[::16]  # noqa: F841 (pins the heap, as live tensors do)
    del blocks
    held = resident_mib()
    assert release_freed_memory()
    assert held - resident_mib() > 150


def test_it_releases_before_every_nth_update(monkeypatch):
    released = []
    monkeypatch.setattr(release_memory, "release_freed_memory", lambda: released.append(True))
    callback = make_release_memory(every=3)
    steps = []
    for step in range(10):
        before = len(released)
        callback(None, {"step": step, "epoch": 0})
        if len(released) > before:
            steps.append(step)
    assert steps == [0, 3, 6, 9]


@pytest.mark.parametrize("every", [0, -1, 1.5, True, "2"])
def test_a_bad_every_names_the_value_and_the_way_out(every):
    with pytest.raises(ValueError, match=r"\[E443\].*every = " + re.escape(repr(every)) + ".*before_update = null"):
        make_release_memory(every=every)


@pytest.mark.parametrize("name", ["global_pointer_trf", "crener_trf", "lcrf_ner_trf", "cse_ner_trf"])
def test_the_transformer_configs_release_memory_before_each_update(name):
    config = load_config(CONFIGS / f"{name}.cfg", interpolate=False)
    block = config["training"]["before_update"]
    assert block == {"@callbacks": "spacy-globalner.release_memory.v1", "every": 1}
    callback = registry.resolve({"before_update": block})["before_update"]
    assert callable(callback)
