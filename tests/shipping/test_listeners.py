"""A component whose listener's encoder did not run warns once (W006) instead
of predicting nothing in silence: sourced without its tok2vec, or run alone
with nlp.select_pipes.
"""
import warnings

import pytest
import spacy
from spacy.training import Example

from tests.helpers.trained_pipelines import SMALL_TOK2VEC, component_params, genia_docs, small_config

TEXT = "IL-2 gene expression requires NF-kappa B activation in T cells ."


def listening_pipeline(name: str):
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": dict(SMALL_TOK2VEC)})
    config = small_config(name)
    config["model"]["tok2vec"] = {
        "@architectures": "spacy.Tok2VecListener.v1", "width": SMALL_TOK2VEC["width"],
        "upstream": "*",
    }
    nlp.add_pipe(name, config=config)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W100: lcrf_ner learns the outer layer only
        nlp.initialize(lambda: examples)
    return nlp


def w005(record) -> list:
    return [w for w in record if "[W006]" in str(w.message)]


@pytest.mark.parametrize("name", component_params())
def test_listener_without_encoder_warns_once(name):
    nlp = listening_pipeline(name)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        nlp(TEXT)
        nlp("")  # an empty doc has no tensor either: nothing to report
    assert not w005(record)
    # Run alone: the listener gets zeros.
    with nlp.select_pipes(enable=[name]), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        nlp(TEXT)
        list(nlp.pipe([TEXT, TEXT]))
    found = w005(record)
    assert len(found) == 1, [str(w.message) for w in record]
    assert f"'{name}' listens to the upstream component 'tok2vec'" in str(found[0].message)
    # Sourced into a pipeline without its tok2vec (a fresh source: sourcing
    # shares the component object, which has reported already).
    other = spacy.blank("en")
    other.add_pipe(name, source=listening_pipeline(name))
    with pytest.warns(UserWarning, match=rf"\[W006\] '{name}' listens.*'tok2vec'"):
        other(TEXT)


def test_transformer_listener_without_transformer_warns(tiny_bert_path):
    pytest.importorskip("spacy_transformers")
    from tests.helpers.global_pointer import make_examples, transformer_nlp

    nlp = transformer_nlp(tiny_bert_path)
    examples = make_examples(nlp)
    nlp.initialize(lambda: examples)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        nlp(TEXT)
    assert not w005(record)
    with nlp.select_pipes(enable=["global_pointer"]):
        with pytest.warns(UserWarning, match=r"\[W006\] 'global_pointer' listens.*'transformer'"):
            nlp(TEXT)
