"""`use_averages = true` reaches the torch heads: inside
`nlp.use_params(optimizer.averages)`, where spaCy evaluates and saves, every
component holds its parameters' averages (and saves them), and its live
weights after."""
import warnings

import numpy
import pytest
import spacy
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from tests.helpers.trained_pipelines import component_params, genia_docs, small_config


def torch_parameters(pipe):
    return {
        (shim.id, name): param.detach().numpy().copy()
        for node in pipe.model.walk()
        for shim in node.shims
        for name, param in shim.module.named_parameters()
    }


@pytest.mark.parametrize("name", component_params())
def test_the_head_holds_and_saves_its_averages_inside_use_params(name, tmp_path):
    fix_random_seed(0)
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(name, config=small_config(name))
    docs = genia_docs(nlp, limit=6)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    optimizer = Adam(0.01, use_averages=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp.initialize(lambda: examples)
        for _ in range(4):
            nlp.update(examples, sgd=optimizer, drop=0.0)
    live = torch_parameters(pipe)
    averaged = [key for key in live if key in optimizer.averages]
    assert averaged
    with nlp.use_params(optimizer.averages):
        inside = torch_parameters(pipe)
        nlp.to_disk(tmp_path)
    for key in averaged:
        numpy.testing.assert_array_equal(inside[key], optimizer.averages[key], err_msg=str(key))
    assert any(not numpy.array_equal(inside[key], live[key]) for key in averaged)
    after = torch_parameters(pipe)
    for key in live:
        numpy.testing.assert_array_equal(after[key], live[key], err_msg=str(key))
    saved = torch_parameters(spacy.load(tmp_path).get_pipe(name))
    assert len(saved) == len(inside)
    for (key, value), saved_value in zip(inside.items(), saved.values()):
        numpy.testing.assert_array_equal(saved_value, value, err_msg=str(key))
