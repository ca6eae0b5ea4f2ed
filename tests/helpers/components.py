"""The four components, listed once for the tests every head must pass
(tests/pipeline/test_components.py, test_transformer_heads.py): each head's
factory, the language of its two training sentences, the head overfit on
them, and the head listening to a transformer."""
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import spacy
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.training import Example

from tests.helpers import REPO_ROOT, crener, global_pointer, lcrf_ner
from tests.helpers.transformer import TRANSFORMER_LISTENER, add_transformer

Gold = List[Tuple[str, List[Tuple[int, int, str]]]]
Trained = Tuple[Language, TrainablePipe, List[Example]]
Built = Tuple[Language, List[Example]]


@dataclass(frozen=True)
class Head:
    """One component as the shared tests build it.

    factory (str): The factory's name.
    lang (str): The blank language of its training sentences.
    train_data (Gold): Two sentences and their gold (start, end, label) spans:
        nested for the nested heads, flat for lcrf_ner and cse_ner.
    overfit (Callable[[], Trained]): The head alone, trained at seed 0 until it
        predicts train_data's gold; (nlp, pipe, examples).
    transformer_pipeline (Callable[[Path], Built]): A transformer from the
        given path and the head listening to it, untrained; (nlp, examples).
    """

    factory: str
    lang: str
    train_data: Gold
    overfit: Callable[[], Trained]
    transformer_pipeline: Callable[[Path], Built]


def _global_pointer_on_transformer(model_path: Path) -> Built:
    nlp = global_pointer.transformer_nlp(model_path)
    return nlp, global_pointer.make_examples(nlp)


def _crener_on_transformer(model_path: Path) -> Built:
    nlp = spacy.blank("en")
    add_transformer(nlp, model_path)
    nlp.add_pipe("crener", config={"model": {**crener.SMALL_MODEL, "tok2vec": TRANSFORMER_LISTENER}})
    return nlp, [crener.example_of(nlp, text, spans) for text, spans in crener.TRAIN_DATA]


def _flat_on_transformer(factory: str, model_path: Path) -> Built:
    """The head from its shipped configs/<factory>_trf.cfg."""
    path = REPO_ROOT / "configs" / f"{factory}_trf.cfg"
    config = spacy.util.load_config(path, overrides={"paths.transformer": str(model_path)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    return nlp, lcrf_ner.make_examples(nlp)


def _flat(factory: str) -> Head:
    return Head(factory, "de", lcrf_ner.TRAIN_DATA,
                partial(lcrf_ner.overfit, factory=factory, n_iter=lcrf_ner.N_UPDATES[factory]),
                partial(_flat_on_transformer, factory))


HEADS: Dict[str, Head] = {
    head.factory: head
    for head in (
        Head("global_pointer", "en", global_pointer.TRAIN_DATA, global_pointer.overfit,
             _global_pointer_on_transformer),
        Head("crener", "en", crener.TRAIN_DATA, crener.overfit, _crener_on_transformer),
        _flat("lcrf_ner"),
        _flat("cse_ner"),
    )
}
FACTORIES = list(HEADS)


@lru_cache(maxsize=None)
def overfit_pipeline(factory: str) -> Trained:
    """HEADS[factory].overfit(), trained once per test process and shared by
    every test file of it. A test reads it; one that changes a setting
    restores it (try/finally), so that the next file finds the same model.
    """
    return HEADS[factory].overfit()
