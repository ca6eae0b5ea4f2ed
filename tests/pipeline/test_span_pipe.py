"""SpanPipe.initialize is a template: every component validates its examples,
summarises the gold and sets its labels in the base, and gives the model its
settings in `_configure_model` alone, when it is created, sized and loaded,
never per call."""
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
    """The model reads the configured setting as soon as the pipe exists; an
    edit of cfg is not copied into it per call, the pipe's property sets it,
    and at loading it gets the configured value, not the one the saved
    weights hold."""
    nlp, pipe = blank_pipe(name, **{setting: value})
    model = pipe.model.get_ref(node) if node else pipe.model
    assert model.attrs[setting] == value
    docs = genia_docs(nlp, limit=4)
    pipe.initialize(lambda: [Example(nlp.make_doc(doc.text), doc) for doc in docs])
    pipe.cfg[setting] = value + 1
    pipe.predict([nlp.make_doc(docs[0].text)])
    assert model.attrs[setting] == value
    setattr(pipe, setting, value + 2)
    assert model.attrs[setting] == value + 2 and pipe.cfg[setting] == value + 2
    _, loaded = blank_pipe(name, **{setting: value + 3})
    loaded.from_bytes(pipe.to_bytes())
    loaded_model = loaded.model.get_ref(node) if node else loaded.model
    assert loaded_model.attrs[setting] == value + 3


@pytest.mark.parametrize("name", COMPONENTS)
def test_a_second_component_on_the_same_spans_key_is_refused(name):
    """Two components writing doc.spans["sc"]: the later one would replace the
    other's spans. Refused when added, naming both and the key; the fix the
    error gives is accepted."""
    first = "crener" if name == "global_pointer" else "global_pointer"
    nlp = spacy.blank("en")
    nlp.add_pipe(first, config=small_config(first))
    with pytest.raises(ValueError, match=rf"\[E023\] '{name}' and '{first}' both write doc.spans\['sc'\]") as error:
        nlp.add_pipe(name, config=small_config(name))
    assert name not in nlp.pipe_names
    fix = f'nlp.add_pipe("{name}", name="{name}", config={{"spans_key": "{name}"}})'
    assert fix in str(error.value)
    nlp.add_pipe(name, config={**small_config(name), "spans_key": name})
    assert nlp.pipe_names == [first, name]


@pytest.mark.parametrize("name", COMPONENTS)
def test_initialize_refuses_two_components_on_one_spans_key(name):
    """A key changed after the pipeline was built is caught at nlp.initialize."""
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", name="first", config=small_config("global_pointer"))
    pipe = nlp.add_pipe(name, config={**small_config(name), "spans_key": "other"})
    pipe.cfg["spans_key"] = "sc"
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=2)]
    with pytest.raises(ValueError, match=rf"\[E023\] 'first' and '{name}' both write doc.spans\['sc'\]"):
        nlp.initialize(lambda: examples)


# spaCy's components that write doc.spans, each configured onto "sc".
SPACY_SPAN_WRITERS = {
    "spancat": {"spans_key": "sc"},
    "spancat_singlelabel": {"spans_key": "sc"},
    "span_finder": {"spans_key": "sc"},
    "span_ruler": {"spans_key": "sc"},
}


def refused(spacy_factory: str) -> str:
    return rf"\[E023\] 'global_pointer' and '{spacy_factory}' both write doc.spans\['sc'\]"


@pytest.mark.parametrize("spacy_factory", sorted(SPACY_SPAN_WRITERS))
def test_a_package_component_after_spacys_span_writer_on_one_key_is_refused(spacy_factory):
    nlp = spacy.blank("en")
    nlp.add_pipe(spacy_factory, config=SPACY_SPAN_WRITERS[spacy_factory])
    with pytest.raises(ValueError, match=refused(spacy_factory)):
        nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    nlp.add_pipe("global_pointer", config={**small_config("global_pointer"), "spans_key": "gp"})


@pytest.mark.parametrize("spacy_factory", sorted(SPACY_SPAN_WRITERS))
def test_spacys_span_writer_after_a_package_component_on_one_key_is_refused_at_initialize(spacy_factory):
    """spaCy's factory checks nothing when it joins: nlp.initialize (and so
    `spacy train`) refuses the pipeline before the first update."""
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    nlp.add_pipe(spacy_factory, config=SPACY_SPAN_WRITERS[spacy_factory])
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=2)]
    with pytest.raises(ValueError, match=refused(spacy_factory)):
        nlp.initialize(lambda: examples)


def test_spacys_components_on_keys_of_their_own_are_let_through():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_ruler")  # its own key, "ruler"
    nlp.add_pipe("entity_ruler")  # doc.ents only
    pipe = nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    nlp.add_pipe("spancat", config={"spans_key": "spancat"})
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=2)]
    pipe.initialize(lambda: examples, nlp=nlp)  # spancat has no gold on its key here
