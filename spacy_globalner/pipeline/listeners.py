"""Notice a component that listens to an encoder which did not run.

A Tok2VecListener (or spacy-transformers' TransformerListener) reads what its
upstream component stored on each doc. When that component is not in the
running pipeline (sourced without it, left out by `nlp.select_pipes` or
`disable`), the listener hands the head zeros at prediction time, and the
component predicts nothing without a word.
"""
from typing import Iterable, Optional

from spacy.pipeline.tok2vec import Tok2VecListener
from spacy.tokens import Doc
from thinc.api import Model

TRANSFORMER_LISTENER = "transformer-listener"


def missing_upstream(model: Model, docs: Iterable[Doc]) -> Optional[str]:
    """The upstream name of a listener in `model` that found none of its
    encoder's output on the (non-empty) docs, else None.
    """
    docs = [doc for doc in docs if len(doc)]
    if not docs:
        return None
    for node in model.walk():
        if isinstance(node, Tok2VecListener):
            if all(doc.tensor.size == 0 for doc in docs):
                return _named(node.upstream_name, "tok2vec")
        elif node.name == TRANSFORMER_LISTENER and Doc.has_extension("trf_data"):
            if all(doc._.trf_data is None for doc in docs):
                return _named(getattr(node, "upstream_name", "*"), "transformer")
    return None


def _named(upstream: str, usual: str) -> str:
    # "*" listens to any encoder; name the usual one
    return usual if upstream == "*" else upstream
