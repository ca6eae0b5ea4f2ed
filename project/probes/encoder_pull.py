"""How hard each head pulls on a tok2vec it shares with spaCy's `ner` and
`spancat`: the norm of the gradient each one sends into the shared encoder.

    python project/probes/encoder_pull.py TRAIN_SPACY CONFIG [--batch-sizes 8,32,128]

CONFIG is a pipeline config with a `tok2vec` component and one listening head
(configs/global_pointer.cfg, configs/crener.cfg, configs/lcrf_ner.cfg);
spaCy's `ner` and `spancat` (their default models, listening to the same
tok2vec) are added beside it. The pipeline is trained jointly for a few
updates, then for each batch size every head's gradient with respect to the
shared tok2vec's output is measured on the same batches, with no update.
Our heads average their loss over the batch; spaCy's sum it, so their pull
grows with the batch size and ours does not (docs/global_pointer.md, "Loss scale").
"""
import statistics
import sys
from pathlib import Path
from typing import Callable, Dict, List

import typer
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import load_config, load_model_from_config
from thinc.api import Adam, fix_random_seed

import spacy_globalner  # noqa: F401 (registers the components)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from common import Arg, Opt, set_threads  # noqa: E402

SPACY_HEADS = ("ner", "spancat")
# spancat writes a key of its own (two components on "sc" are refused, E023),
# and learns from a copy of the corpus's doc.spans["sc"] there.
SPANCAT_KEY = "spancat"


def shared_pipeline(config_path: Path):
    config = load_config(config_path)
    head = config["nlp"]["pipeline"][-1]
    listener = dict(config["components"][head]["model"]["tok2vec"])
    for name in SPACY_HEADS:  # spaCy's default model, its tok2vec a listener (filled in on load)
        config["nlp"]["pipeline"].append(name)
        config["components"][name] = {"factory": name, "model": {"tok2vec": listener}}
    config["components"]["spancat"]["spans_key"] = SPANCAT_KEY
    return load_model_from_config(config, auto_fill=True), head


def read_gold(nlp, path: Path) -> List[Doc]:
    """The corpus's docs, their doc.spans["sc"] copied under SPANCAT_KEY."""
    docs = list(DocBin().from_disk(path).get_docs(nlp.vocab))
    for doc in docs:
        doc.spans[SPANCAT_KEY] = list(doc.spans["sc"])
    return docs


def gradient_norm_recorder(norms: Dict[str, float], name: str) -> Callable:
    def backprop(d_tokvecs):
        norms[name] = sum(float((d * d).sum()) for d in d_tokvecs) ** 0.5
        return []

    return backprop


def encoder_pulls(nlp, examples: List[Example]) -> Dict[str, float]:
    """Each head's gradient norm at the shared tok2vec's output for one batch,
    from one forward pass of the encoder; no weight changes."""
    tok2vec = nlp.get_pipe("tok2vec")
    heads = [name for name in nlp.pipe_names if name != "tok2vec"]
    norms: Dict[str, float] = {}
    docs = [eg.predicted for eg in examples]
    tokvecs = tok2vec.model.predict(docs)
    for listener in tok2vec.listeners:
        batch_id = listener.get_batch_id(docs)
        owner = next(name for name in heads if listener in nlp.get_pipe(name).model.walk())
        listener.receive(batch_id, tokvecs, gradient_norm_recorder(norms, owner))
    for name in heads:
        nlp.get_pipe(name).update(examples, drop=0.0, sgd=None, losses={})
    return norms


def main(
    # fmt: off
    train_path: Path = Arg(..., help="A .spacy corpus with doc.ents and doc.spans['sc']", metavar="TRAIN_SPACY"),
    config_path: Path = Arg(..., help="Config with a tok2vec and one listening head", metavar="CONFIG"),
    batch_sizes: str = Opt("8,32,128", "--batch-sizes", help="Docs per measured batch"),
    warmup: int = Opt(100, "--warmup", help="Joint updates of 32 docs before measuring"),
    batches: int = Opt(5, "--batches", help="Measured batches per size (the median counts)"),
    # fmt: on
):
    set_threads(1)
    fix_random_seed(0)
    nlp, head = shared_pipeline(config_path)
    gold = read_gold(nlp, train_path)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in doc]), doc) for doc in gold]
    nlp.initialize(lambda: examples[:500])
    optimizer = Adam(0.001)
    for i in range(warmup):
        lo = (32 * i) % max(len(examples) - 32, 1)
        nlp.update(examples[lo : lo + 32], sgd=optimizer)
    print(f"{config_path.name}: {head} beside ner and spancat on one tok2vec, after {warmup} joint updates")
    for size in [int(s) for s in batch_sizes.split(",")]:
        rows: Dict[str, List[float]] = {}
        for b in range(batches):
            lo = 32 * warmup + size * b
            for name, value in encoder_pulls(nlp, examples[lo : lo + size]).items():
                rows.setdefault(name, []).append(value)
        pulls = {name: statistics.median(values) for name, values in rows.items()}
        ratios = ", ".join(f"{name} {pulls[name] / pulls[head]:.1f}x" for name in SPACY_HEADS)
        print(f"batch {size:>4} docs: gradient norm at the encoder's output "
              + ", ".join(f"{name} {value:.3g}" for name, value in pulls.items())
              + f" ({ratios} {head}'s)")


if __name__ == "__main__":
    typer.run(main)
