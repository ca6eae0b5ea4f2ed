"""Helpers the tests import (not tests themselves): paths, small trained
pipelines, brute-force references."""
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import spacy
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.training import Example
from thinc.api import Model, fix_random_seed

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def head_module(model: Model):
    """The torch module of a component model's head layer."""
    return wrapped_module(model.get_ref("head").layers[0])


def overfit_blank(
    lang: str,
    factory: str,
    make_examples: Callable[[Language], List[Example]],
    config: Optional[Dict] = None,
    n_iter: int = 30,
) -> Tuple[Language, TrainablePipe, List[Example]]:
    """A blank `lang` pipeline with `factory` alone, updated n_iter times
    without dropout on make_examples(nlp), at seed 0.

    RETURNS (Tuple[Language, TrainablePipe, List[Example]]): nlp, its pipe, the examples.
    """
    fix_random_seed(0)
    nlp = spacy.blank(lang)
    pipe = nlp.add_pipe(factory, config=config or {})
    examples = make_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(n_iter):
        nlp.update(examples, sgd=optimizer, drop=0.0)
    return nlp, pipe, examples
