"""SpanPipe.initialize is a template: every component validates its examples,
summarises the gold and sets its labels in the base, and copies its settings
into the model in `_configure_model` alone, from creation on."""
import pytest
import spacy
from spacy.training import Example

from spacy_globalner.pipeline.span_pipe import SpanPipe
from tests.helpers.trained_pipelines import COMPONENTS, genia_docs, small_config


def blank_pipe(name: str, **settings):
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(name, config={**small_config(name), **settings})
    return nlp, pipe


@pytest.mark.parametrize("name", COMPONENTS)
def test_initialize_is_the_base_template(name):
    """No component replaces initialize; each fills the hook."""
    nlp, pipe = blank_pipe(name)
    assert type(pipe).initialize is SpanPipe.initialize
    assert type(pipe)._initialize_settings is not SpanPipe._initialize_settings


@pytest.mark.parametrize("name", COMPONENTS)
def test_initialize_validates_get_examples(name):
    """Docs instead of Examples, or a list instead of a callable, get spaCy's
    own TypeError naming the component's initialize, not an AttributeError."""
    nlp, pipe = blank_pipe(name)
    docs = genia_docs(nlp, limit=2)
    with pytest.raises(TypeError, match=rf"E978.*{type(pipe).__name__}\.initialize"):
        pipe.initialize(lambda: docs)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    with pytest.raises(TypeError, match=rf"E930.*{type(pipe).__name__}\.initialize"):
        pipe.initialize(examples)
    assert not pipe.is_initialized
    pipe.initialize(lambda: examples)
    assert pipe.is_initialized


@pytest.mark.parametrize(
    "name,setting,value,node",
    [("global_pointer", "max_span_width", 5, "head"), ("crener", "max_grid_length", 12, None)],
)
def test_settings_reach_the_model_on_creation(name, setting, value, node):
    """The model reads the configured setting as soon as the pipe exists, and an
    edit of cfg reaches it at the next predict."""
    nlp, pipe = blank_pipe(name, **{setting: value})
    model = pipe.model.get_ref(node) if node else pipe.model
    assert model.attrs[setting] == value
    docs = genia_docs(nlp, limit=4)
    pipe.initialize(lambda: [Example(nlp.make_doc(doc.text), doc) for doc in docs])
    pipe.cfg[setting] = value + 1
    assert model.attrs[setting] == value
    pipe.predict([nlp.make_doc(docs[0].text)])
    assert model.attrs[setting] == value + 1
