import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402

import spacy_globalner  # noqa: E402,F401  (registers every factory and function)
from tests.helpers import SHARED_DATA  # noqa: E402
from tests.helpers.trained_pipelines import one_torch_thread as torch_threads_set_to_one  # noqa: E402


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real corpora in ../shared/data (present here and in CI)."""
    if not SHARED_DATA.exists():
        pytest.skip(f"{SHARED_DATA} is not present")
    return SHARED_DATA


def pytest_collection_modifyitems(items: list) -> None:
    """Files holding a `slow` test first, each file's tests kept together and in
    order. `make test` hands whole files to two workers in this order
    (`--no-loadscope-reorder`), so the training tests start at once and the
    many quick files fill the gaps, instead of one worker starting a minutes-long
    file while the other has nothing left."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked `gpu` need a CUDA device: skipped without one."""
    if item.get_closest_marker("gpu") is not None:
        import torch

        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA device (marker gpu)")


@pytest.fixture(name="one_torch_thread")
def one_torch_thread_fixture():
    """One torch intra-op thread for the test (restored after it): on a shared
    machine the tiny models' many small steps made two contending threads
    several times slower than one."""
    with torch_threads_set_to_one():
        yield


# The unit tests of layers, losses, decoders, readers, components and the tuner
# check numbers, not threading: they run on one torch thread, set in this
# process only. Two xdist workers each on torch's default (one thread per core)
# put four spinning threads on two cores; tests/ml took 36 CPU s that way
# against 15 on one thread. The project's scripts run on one thread too, as
# project.yml runs them (vars.threads: 1). What a user runs keeps torch's
# defaults: the tests in shipping/, cli/ and scale/, and every command a test
# starts as a process of its own (set_num_threads does not reach a child).
ONE_THREAD_DIRS = {"ml", "decoding", "pipeline", "corpora", "tuning", "project"}
TESTS_ROOT = Path(__file__).parent


@pytest.fixture(autouse=True)
def unit_tests_on_one_torch_thread(request: pytest.FixtureRequest):
    parts = Path(request.node.path).relative_to(TESTS_ROOT).parts
    if len(parts) > 1 and parts[0] in ONE_THREAD_DIRS:
        with torch_threads_set_to_one():
            yield
    else:
        yield


@pytest.fixture(scope="session")
def tiny_bert_path(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer BERT with a WordPiece vocab, saved to disk.

    Built in the test session (no download), loadable by spacy-transformers by path.
    """
    pytest.importorskip("spacy_transformers")
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-bert")
    words = (
        "il-2 gene expression activation human t cells express cd28 receptor nf "
        "kappa b protein dna rna cell line type the of and in a to is by with"
    ).split()
    pieces = ["##" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789-"]
    chars = list("abcdefghijklmnopqrstuvwxyz0123456789-.,()")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words + chars + pieces
    (path / "vocab.txt").write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf8")
    tokenizer = BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    tokenizer.save_pretrained(str(path))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
    )
    import torch

    torch.manual_seed(0)
    BertModel(config).save_pretrained(str(path))
    return path
