"""Helpers shared by the tests in tests/shipping/: small trained pipelines
for each component, built once per test process, and their predictions as
comparable values. The tests at the bottom check the shared records writer.
"""
import atexit
import contextlib
import functools
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
import spacy
import torch
from spacy.language import Language
from spacy.training import Example
from spacy.util import fix_random_seed

from spacy_globalner.corpora import read_nested_jsonl
from spacy_globalner.scale import doc_to_record
from tests.helpers import REPO_ROOT

GENIA_TRAIN = REPO_ROOT / "project" / "assets" / "genia" / "train.jsonl"
GENIA_DEV = REPO_ROOT / "project" / "assets" / "genia" / "dev.jsonl"

SMALL_TOK2VEC = {
    "@architectures": "spacy.HashEmbedCNN.v2",
    "pretrained_vectors": None,
    "width": 32,
    "depth": 1,
    "embed_size": 500,
    "window_size": 1,
    "maxout_pieces": 2,
    "subword_features": True,
}
# Small heads: these tests check plumbing (processes, packages, bytes), not accuracy.
SMALL_MODELS: Dict[str, Dict] = {
    "global_pointer": {"head_width": 16},
    "lcrf_ner": {},
    "cse_ner": {},
    "crener": {
        "token_width": 16,
        "grid_width": 8,
        "distance_width": 4,
        "region_width": 4,
        "conv_width": 8,
        "attention_heads": 2,
        "biaffine_width": 8,
        "predictor_width": 8,
        # After a few updates the grid+tags co-predictor (the factory's
        # setting) scores the cells of a long messy doc all alike: no
        # threshold makes a model this young predict a sane amount.
        "predictor_input": "grid",
    },
}
# crener's grid needs more than a few updates to clear its learned threshold;
# a lower threshold (sigmoid(-0.5)) makes the small model predict something to compare. For the
# same reason global_pointer starts without its prior offset (the log-odds of
# a span being an entity), which leaves a model this young almost no span above 0;
# tests/pipeline/test_global_pointer_prior.py covers the offset.
SMALL_SETTINGS: Dict[str, Dict] = {"crener": {"threshold": 0.3775}, "global_pointer": {"prior_offset": False}}
COMPONENTS = list(SMALL_MODELS)
N_TRAIN_DOCS = 20
N_UPDATES = 8


def component_params() -> List:
    """The components as pytest params."""
    return [pytest.param(name) for name in COMPONENTS]


def small_config(name: str) -> Dict:
    model = dict(Language.get_factory_meta(name).default_config["model"])
    model.update(SMALL_MODELS[name])
    model["tok2vec"] = dict(SMALL_TOK2VEC)
    return {"model": model, **SMALL_SETTINGS.get(name, {})}


def genia_docs(nlp: Language, limit: int = N_TRAIN_DOCS, path: Path = GENIA_TRAIN):
    return list(read_nested_jsonl(path, nlp.vocab, limit=limit))


def write_genia_dev(path: Path, limit: int) -> Path:
    """The first LIMIT docs of the bundled GENIA dev slice as a .spacy file at PATH."""
    from spacy.tokens import DocBin

    DocBin(docs=genia_docs(spacy.blank("en"), limit=limit, path=GENIA_DEV), store_user_data=True).to_disk(path)
    return path


@contextlib.contextmanager
def one_torch_thread():
    """Tiny models on a shared 2-core machine: one intra-op thread is ~4x faster
    than two contending ones. The caller's setting is restored.

    For building test fixtures (training the small pipelines) and for numeric
    comparisons only; what a user runs (prediction, loading, calibrate,
    multiprocessing) is tested with torch's default threads.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_small(name: str, *, seed: int = 0, n_updates: int = N_UPDATES) -> Tuple[Language, List[float]]:
    """A blank English pipeline with one small component trained on GENIA docs.

    RETURNS (Tuple[Language, List[float]]): The pipeline and its loss per update.
    """
    fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe(name, config=small_config(name))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp)]
    with warnings.catch_warnings(), one_torch_thread():
        warnings.simplefilter("ignore")  # W100: lcrf_ner learns the outer layer only
        optimizer = nlp.initialize(lambda: examples)
        history = []
        for _ in range(n_updates):
            losses = nlp.update(examples, sgd=optimizer, losses={})
            history.append(losses[name])
    return nlp, history



def train_config(config, path: Path, *, seed: int = 0, n_updates: int = N_UPDATES) -> Path:
    """The pipeline of a training CONFIG (a Config, as a project script
    composes it) trained on GENIA docs as `spacy train` updates it, with the
    config's annotating components, and saved at PATH."""
    from spacy.util import load_model_from_config

    fix_random_seed(seed)
    with warnings.catch_warnings(), one_torch_thread():
        warnings.simplefilter("ignore")
        nlp = load_model_from_config(config, auto_fill=True)
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp)]
        optimizer = nlp.initialize(lambda: examples)
        for _ in range(n_updates):
            nlp.update(examples, sgd=optimizer, annotates=config["training"]["annotating_components"])
    nlp.to_disk(path)
    return path

@functools.lru_cache(maxsize=None)
def trained_dir(name: str) -> Path:
    """A small trained pipeline for `name`, saved once per test process."""
    nlp, _ = train_small(name)
    folder = tempfile.mkdtemp(prefix=f"shipping-{name}-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = Path(folder) / "pipeline"
    nlp.meta["name"] = f"shipping_{name}"
    nlp.meta["version"] = "0.0.1"
    nlp.to_disk(path)
    return path


@functools.lru_cache(maxsize=None)
def calibrated_dir(name: str) -> Path:
    """trained_dir(name) after `spacy globalner calibrate` on 60 GENIA dev docs
    (its thresholds in the component's cfg), saved once per test process."""
    import json

    from spacy.tokens import DocBin

    from spacy_globalner.cli.calibrate import calibrate

    folder = Path(tempfile.mkdtemp(prefix=f"shipping-{name}-calibrated-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = genia_docs(spacy.blank("en"), limit=60, path=GENIA_DEV)
    DocBin(docs=docs, store_user_data=True).to_disk(folder / "dev.spacy")
    calibrate(trained_dir(name), folder / "dev.spacy", output_path=folder / "pipeline")
    meta_path = folder / "pipeline" / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf8"))
    meta["name"] = f"shipping_{name}_calibrated"
    meta_path.write_text(json.dumps(meta), encoding="utf8")
    return folder / "pipeline"


def sample_texts(n: int = 40) -> List[str]:
    """Dev sentences (unseen in training), plus a few edge cases."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = [doc.text for doc in genia_docs(spacy.blank("en"), limit=n, path=GENIA_DEV)]
    return texts + ["", "IL-2", "  ", "NF-kappa B activation in T cells ."]


def predictions(docs) -> List[Tuple]:
    """What a pipeline predicted, comparable with ==: spans with scores rounded
    to 4 decimals (batched and unbatched matmuls differ in the last bits), ents.
    """
    out = []
    for doc in docs:
        record = doc_to_record(doc)
        spans = tuple(
            (s["key"], s["start"], s["end"], s["label"],
             None if s["score"] is None else round(s["score"], 4))
            for s in record["spans"]
        )
        ents = tuple((e["start"], e["end"], e["label"]) for e in record["ents"])
        out.append((doc.text, spans, ents))
    return out


def records_equal(got: List[Dict], expected: List[Dict], *, atol: float = 1e-4) -> None:
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert (a["id"], a["text"], a["ents"]) == (b["id"], b["text"], b["ents"])
        assert len(a["spans"]) == len(b["spans"]), (a, b)
        for sa, sb in zip(a["spans"], b["spans"]):
            assert {k: v for k, v in sa.items() if k != "score"} == {
                k: v for k, v in sb.items() if k != "score"
            }
            if sb["score"] is None:
                assert sa["score"] is None
            else:
                assert sa["score"] == pytest.approx(sb["score"], abs=atol)
