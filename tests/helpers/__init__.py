"""Helpers the tests import (not tests themselves): paths, small trained
pipelines, brute-force references."""
from pathlib import Path

from thinc.api import Model

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def head_module(model: Model):
    """The torch module of a component model's head layer."""
    return wrapped_module(model.get_ref("head").layers[0])
