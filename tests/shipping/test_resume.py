"""Resuming and re-initialising a trained pipeline.

- `source` a trained component in a new config (what `spacy train` does for
  sourced components): it starts from the trained weights and labels, and
  trains further on new data.
- `nlp.resume_training()` on a loaded pipeline continues training in Python.
- A label the trained component does not have is an error: E004 from
  add_label or a re-initialisation that finds it, E003 from update.
"""
import math
import warnings

import pytest
import spacy
from spacy.tokens import DocBin, Span
from spacy.training import Example
from spacy.training.initialize import init_nlp
from thinc.api import Config

from tests.helpers.trained_pipelines import (
    GENIA_DEV,
    component_params,
    genia_docs,
    one_torch_thread,
    trained_dir,
)


def new_examples(nlp, limit=10):
    """Unseen sentences (GENIA dev) with the labels of the training data."""
    labels = set(nlp.get_pipe(nlp.pipe_names[-1]).labels)
    examples = []
    for doc in genia_docs(nlp, limit=limit, path=GENIA_DEV):
        doc.spans["sc"] = [span for span in doc.spans["sc"] if span.label_ in labels]
        doc.ents = [ent for ent in doc.ents if ent.label_ in labels]
        examples.append(Example(nlp.make_doc(doc.text), doc))
    return examples


@pytest.mark.parametrize("name", component_params())
def test_sourced_component_resumes_from_trained_weights(name, tmp_path):
    source = spacy.load(trained_dir(name))
    corpus = tmp_path / "new.spacy"
    DocBin(docs=[example.reference for example in new_examples(source)]).to_disk(corpus)
    config = Config().from_str(source.config.to_str())
    config["components"][name] = {"source": str(trained_dir(name))}
    # source.config is interpolated: set the corpus paths where they are read
    for split in ("train", "dev"):
        config["corpora"][split]["path"] = str(corpus)
    # init_nlp is `spacy train`'s initialisation: a sourced component is not
    # re-initialised but resumed (nlp.resume_training).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp = init_nlp(config)
    pipe = nlp.get_pipe(name)
    assert pipe.labels == source.get_pipe(name).labels
    assert pipe.model.to_bytes() == source.get_pipe(name).model.to_bytes()
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in DocBin().from_disk(corpus).get_docs(nlp.vocab)]
    optimizer = nlp.resume_training()
    with one_torch_thread():
        losses = [nlp.update(examples, sgd=optimizer, losses={})[name] for _ in range(3)]
    assert all(math.isfinite(loss) for loss in losses)
    assert pipe.model.to_bytes() != source.get_pipe(name).model.to_bytes()


@pytest.mark.parametrize("name", component_params())
def test_resume_training_loaded_pipeline(name, tmp_path):
    nlp = spacy.load(trained_dir(name))
    examples = new_examples(nlp)
    before = nlp.evaluate(examples)
    optimizer = nlp.resume_training()
    with one_torch_thread():
        losses = [nlp.update(examples, sgd=optimizer, losses={})[name] for _ in range(6)]
    assert all(math.isfinite(loss) for loss in losses)
    assert losses[-1] < losses[0]  # it learns the new data
    nlp.to_disk(tmp_path / "resumed")
    reloaded = spacy.load(tmp_path / "resumed")
    assert reloaded.get_pipe(name).labels == nlp.get_pipe(name).labels
    assert set(nlp.evaluate(examples)) == set(before)


@pytest.mark.parametrize("name", component_params())
def test_new_label_on_trained_component_is_an_error(name):
    nlp = spacy.load(trained_dir(name))
    pipe = nlp.get_pipe(name)
    assert "RNA" not in pipe.labels
    with pytest.raises(ValueError, match=r"\[E004\] Cannot add label 'RNA'"):
        pipe.add_label("RNA")
    assert pipe.add_label(pipe.labels[0]) == 0  # an existing label is fine
    doc = nlp.make_doc("IL-2 mRNA levels rose .")
    reference = doc.copy()
    reference.spans["sc"] = [Span(reference, 0, 2, label="RNA")]
    reference.ents = list(reference.spans["sc"])
    example = Example(doc, reference)
    with pytest.raises(ValueError, match=r"\[E003\] Gold span label 'RNA'"):
        nlp.update([example], sgd=nlp.resume_training())
    # Re-initialising on data with the new label cannot resize the trained head.
    with pytest.raises(ValueError, match=r"\[E004\] Cannot add label 'RNA'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nlp.initialize(lambda: [example])
