"""head_lr_scale, applied by SpanPipe.finish_update for every component: one
Adam step moves the head's parameters `scale` times as far, and nothing else
differently."""
import warnings

import numpy
import pytest
import spacy
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_globalner.pipeline.head_lr import HeadScaledOptimizer
from tests.helpers.trained_pipelines import component_params, genia_docs, small_config

SCALE = 8.0


def one_step(name, head_lr_scale):
    """Each parameter's change in one update, keyed by walk position and name."""
    fix_random_seed(0)
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(name, config={**small_config(name), "head_lr_scale": head_lr_scale})
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp.initialize(lambda: examples)
    head = pipe.model.get_ref("head")
    head_nodes = {node.id for node in head.walk()}

    def snapshot():
        values = {}
        for i, node in enumerate(pipe.model.walk()):
            part = "head" if node.id in head_nodes else "body"
            for shim in node.shims:
                for param_name, param in shim.module.named_parameters():
                    values[(part, i, param_name)] = param.detach().numpy().copy()
            for param_name in node.param_names:
                if node.has_param(param_name):
                    values[(part, i, param_name)] = numpy.array(node.get_param(param_name))
        return values

    before = snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp.update(examples, sgd=Adam(0.001), drop=0.0)
    after = snapshot()
    return {key: after[key] - before[key] for key in before}


@pytest.mark.parametrize("name", component_params())
def test_head_lr_scale_reaches_the_head_parameters(name):
    plain, scaled = one_step(name, 1.0), one_step(name, SCALE)
    head_keys = [key for key in plain if key[0] == "head"]
    body_keys = [key for key in plain if key[0] == "body"]
    assert head_keys and body_keys
    n_moved = 0
    for key in head_keys:
        moved = numpy.abs(plain[key]) > 1e-6
        n_moved += int(moved.sum())
        # Adam's first step is lr * m / (sqrt(v) + eps): proportional to the rate.
        numpy.testing.assert_allclose(scaled[key][moved], SCALE * plain[key][moved], rtol=2e-2, err_msg=str(key))
    assert n_moved > 0
    for key in body_keys:
        numpy.testing.assert_allclose(scaled[key], plain[key], rtol=1e-4, atol=1e-7, err_msg=str(key))


def test_the_proxy_passes_everything_else_through():
    optimizer = Adam(0.001)
    model = spacy.blank("en").add_pipe("lcrf_ner").model
    proxy = HeadScaledOptimizer(optimizer, model.get_ref("head"), 3.0)
    assert proxy.learn_rate == optimizer.learn_rate and proxy.L2 == optimizer.L2
    assert proxy.averages is optimizer.averages
