"""fp16/bf16 safety of the heads, checked on CPU: no device machine is lent to
this project's CI, so GPU runs (--gpu-id 0, mixed_precision = true) are not
tested here; see docs/shipping.md. What mixed precision changes is the dtype
of the head's activations, so the same things are checked on CPU: masks use
the dtype's own minimum (finite), the losses are computed in fp32 from fp16
or bf16 logits, and a whole predict + update under fp16 autocast stays finite.
"""

import numpy
import pytest
import spacy
import torch
from spacy.training import Example

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.torch.crener.loss import threshold_multilabel_loss
from spacy_globalner.ml.torch.global_pointer.loss import global_pointer_loss
from spacy_globalner.ml.torch.lcrf_ner.likelihood import crf_nll
from tests.helpers import REPO_ROOT
from tests.helpers.trained_pipelines import component_params, genia_docs, one_torch_thread, trained_dir

HALF = [torch.float16, torch.bfloat16]
PACKAGE = REPO_ROOT / "spacy_globalner"


def finite(tensor: torch.Tensor) -> bool:
    return bool(torch.isfinite(tensor).all())


@pytest.mark.parametrize("dtype", HALF)
def test_global_pointer_loss_half_logits(dtype):
    torch.manual_seed(0)
    n_cells, n_groups = 60, 6
    logits32 = torch.randn(n_cells) * 8
    valid = torch.rand(n_cells) > 0.2
    # cells left out of the loss may hold anything, the dtype's minimum included
    logits32 = logits32.masked_fill(~valid, torch.finfo(dtype).min)
    logits32[0] = 30000.0  # a saturated valid cell (fp16's max is 65504)
    gold = (torch.rand(n_cells) > 0.8) & valid
    group = torch.arange(n_cells) % n_groups
    half = logits32.to(dtype).requires_grad_(True)
    loss = global_pointer_loss(half, gold, valid, group, n_groups)
    assert loss.dtype == torch.float32 and finite(loss)
    loss.backward()
    assert half.grad.dtype == dtype and finite(half.grad)
    reference = global_pointer_loss(half.detach().float(), gold, valid, group, n_groups)
    assert loss.item() == pytest.approx(reference.item(), rel=1e-6)


@pytest.mark.parametrize("dtype", HALF)
def test_threshold_loss_half_logits(dtype):
    torch.manual_seed(0)
    logits32 = torch.randn(40, 1 + 5) * 8
    logits32[0, 1] = 30000.0  # saturated cells (fp16's max is 65504)
    logits32[1, 2] = -30000.0
    gold = torch.rand(40, 5) > 0.7
    gold[2] = False  # a cell with no positive tag
    half = logits32.to(dtype).requires_grad_(True)
    loss = threshold_multilabel_loss(half, gold, positive_weight=5.0)
    assert loss.dtype == torch.float32 and finite(loss)
    loss.backward()
    assert finite(half.grad)
    reference = threshold_multilabel_loss(half.detach().float(), gold, positive_weight=5.0)
    assert loss.item() == pytest.approx(reference.item(), rel=1e-6)


@pytest.mark.parametrize("dtype", HALF)
def test_crf_nll_half_emissions(dtype):
    torch.manual_seed(0)
    n_docs, length, n_tags = 3, 7, 5
    emissions = (torch.randn(n_docs, length, n_tags) * 20).to(dtype).requires_grad_(True)
    transitions = (torch.randn(n_tags + 2, n_tags + 2) * 5).to(dtype).requires_grad_(True)
    tags = torch.randint(0, n_tags, (n_docs, length))
    lengths = torch.tensor([7, 3, 0])  # a full doc, a padded one, an empty one
    loss = crf_nll(emissions, transitions, tags, lengths)
    assert loss.dtype == torch.float32 and finite(loss) and loss.item() >= -1e-3
    loss.backward()
    assert finite(emissions.grad) and finite(transitions.grad)
    reference = crf_nll(emissions.detach().float(), transitions.detach().float(), tags, lengths)
    assert loss.item() == pytest.approx(reference.item(), rel=1e-5)


def _float_arrays(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _float_arrays(item)
    elif hasattr(value, "dtype") and value.dtype.kind == "f":
        yield value


@pytest.mark.parametrize("name", component_params())
def test_predict_and_update_under_fp16_autocast(name):
    """The CPU stand-in for mixed_precision = true on GPU: the head runs in fp16."""
    nlp = spacy.load(trained_dir(name))
    pipe = nlp.get_pipe(name)
    gold = genia_docs(nlp, limit=6)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in gold]
    docs = [example.predicted for example in examples]
    with one_torch_thread(), torch.autocast("cpu", dtype=torch.float16):
        scores, backprop = pipe.model.begin_update(docs)
        arrays = list(_float_arrays(scores))
        assert any(array.dtype == numpy.float16 for array in arrays), "autocast did not apply"
        assert all(numpy.isfinite(array).all() for array in arrays)
        loss, d_scores = pipe.get_loss(examples, scores)
        assert numpy.isfinite(loss)
        assert all(numpy.isfinite(array).all() for array in _float_arrays(d_scores))
        backprop(d_scores)
        pipe.set_annotations(docs, pipe.model.predict(docs))
    modules = [wrapped_module(node) for node in pipe.model.get_ref("head").walk() if node.shims]
    grads = [param.grad for module in modules for param in module.parameters()
             if param.grad is not None]
    assert grads and all(finite(grad) for grad in grads)
    for doc in docs:
        assert numpy.isfinite(doc.spans[pipe.key].attrs["scores"]).all()
