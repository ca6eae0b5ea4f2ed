"""The grad-scaler path of mixed precision, checked on CPU.

On CUDA, `mixed_precision = true` gives each head's PyTorch shim a grad scaler
(2**16): the output gradients are multiplied by the scale, backpropagated, and
the parameters' gradients divided by it again. Thinc's scaler refuses CPU
tensors, so `CPUGradScaler` below is Thinc's own class with that device check
lifted: same arithmetic, same unscale kernel. With it enabled, the parameter
gradients must equal those of the unscaled fp32 run, for several backward
passes per step (CRENER's window chunks, accumulate_gradient > 1), and
gradients too small for fp16 must survive until they are scaled.
"""
import subprocess
import sys
from typing import Dict, List

import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import PyTorchGradScaler

from spacy_globalner.corpora import convert
from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import (
    GENIA_DEV,
    GENIA_TRAIN,
    component_params,
    genia_docs,
    one_torch_thread,
    predictions,
    sample_texts,
    small_config,
    trained_dir,
)

SCALE = 2.0**16


class CPUGradScaler(PyTorchGradScaler):
    """Thinc's PyTorchGradScaler, allowed on CPU tensors."""

    def _scale_tensor(self, tensor, scale_per_device, inplace):
        scale = scale_per_device.setdefault(tensor.device, self._scale.to(tensor.device))
        return tensor.mul_(scale) if inplace else tensor * scale


def head_shims(pipe) -> List:
    return [shim for node in pipe.model.get_ref("head").walk() for shim in node.shims]


def load(name: str, *, scaled: bool, max_batch_cells: int = None):
    nlp = spacy.load(trained_dir(name))
    pipe = nlp.get_pipe(name)
    for shim in head_shims(pipe):
        shim.grad_scaler = CPUGradScaler(enabled=scaled, init_scale=SCALE)
    if max_batch_cells is not None:
        pipe.model.get_ref("head").attrs["max_batch_cells"] = max_batch_cells
    return nlp, pipe


def head_grads(pipe) -> Dict[str, numpy.ndarray]:
    return {
        f"{i}.{key}": param.grad.detach().float().numpy().copy()
        for i, shim in enumerate(head_shims(pipe))
        for key, param in shim.module.named_parameters()
        if param.grad is not None
    }


def accumulated_grads(name: str, batches: List[List[Example]], *, scaled: bool, **kwargs):
    """Head gradients after one `update` per batch and no optimizer step, as
    spaCy's loop does with accumulate_gradient = len(batches)."""
    nlp, pipe = load(name, scaled=scaled, **kwargs)
    torch.manual_seed(0)  # same dropout masks in both runs
    with one_torch_thread():
        for batch in batches:
            examples = [Example(nlp.make_doc(doc.text), doc) for doc in batch]
            pipe.update(examples, drop=0.0)
    return head_grads(pipe), pipe


def assert_same_grads(scaled: Dict, reference: Dict) -> None:
    assert scaled.keys() == reference.keys() and reference
    for key in reference:
        numpy.testing.assert_allclose(scaled[key], reference[key], rtol=1e-4, atol=1e-9, err_msg=key)


def test_crener_window_chunks_unscaled_once():
    """Windows in chunks of one (max_batch_cells = 1): one backward per
    window, all unscaled exactly once."""
    nlp = spacy.load(trained_dir("crener"))
    batch = genia_docs(nlp, limit=6)
    reference, _ = accumulated_grads("crener", [batch], scaled=False, max_batch_cells=1)
    scaled, pipe = accumulated_grads("crener", [batch], scaled=True, max_batch_cells=1)
    assert head_shims(pipe)[0].grad_scaler._enabled
    assert_same_grads(scaled, reference)


@pytest.mark.parametrize("name", component_params())
def test_accumulate_gradient_unscaled_once(name):
    nlp = spacy.load(trained_dir(name))
    docs = genia_docs(nlp, limit=9)
    batches = [docs[0:3], docs[3:6], docs[6:9]]
    reference, _ = accumulated_grads(name, batches, scaled=False)
    scaled, _ = accumulated_grads(name, batches, scaled=True)
    assert_same_grads(scaled, reference)


def _float_arrays(value):
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _float_arrays(item)
    elif hasattr(value, "dtype") and value.dtype.kind == "f":
        yield value


@pytest.mark.parametrize("name", component_params())
def test_get_loss_gradient_is_fp32_for_half_scores(name):
    """d_scores stay fp32 when the head's scores are fp16, so the grad scaler
    multiplies them before anything is rounded to half."""
    nlp, pipe = load(name, scaled=False)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    docs = [example.predicted for example in examples]
    with one_torch_thread(), torch.autocast("cpu", dtype=torch.float16):
        scores, _ = pipe.model.begin_update(docs)
    assert any(array.dtype == numpy.float16 for array in _float_arrays(scores))
    _, d_scores = pipe.get_loss(examples, scores)
    assert {array.dtype for array in _float_arrays(d_scores)} == {numpy.dtype("float32")}


def _tiny(d_scores):
    """The loss's gradient, shrunk below fp16's smallest number (2**-24, so fp16
    flushes all of it to zero) where the scaled value (x 2**16) is representable."""
    if isinstance(d_scores, (list, tuple)):
        return type(d_scores)(_tiny(array) for array in d_scores)
    return d_scores * numpy.float32(1e-8 / max(float(numpy.abs(d_scores).max()), 1e-30))


@pytest.mark.parametrize("name", component_params())
def test_small_gradients_survive_fp16_until_scaled(name):
    """A head under fp16 autocast with the grad scaler, given gradients too small
    for fp16, gets the same parameter gradients as the fp32 run (to fp16's
    precision), not zeros."""
    grads = {}
    reference_d = None  # the fp32 run's gradient, set in the first pass
    for half in (False, True):
        nlp, pipe = load(name, scaled=half)
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
        docs = [example.predicted for example in examples]
        torch.manual_seed(0)
        with one_torch_thread(), torch.autocast("cpu", dtype=torch.float16, enabled=half):
            scores, backprop = pipe.model.begin_update(docs)
            _, d_scores = pipe.get_loss(examples, scores)
            if half:
                # The reference run's gradient, so both runs backpropagate the same values.
                d_scores = reference_d
            else:
                reference_d = _tiny(d_scores)
                d_scores = reference_d
            backprop(d_scores)
        grads[half] = head_grads(pipe)
    for key, reference in grads[False].items():
        alive = numpy.abs(reference) > 1e-3 * numpy.abs(reference).max()
        lost = (grads[True][key] == 0) & alive
        assert lost.sum() == 0, f"{key}: {int(lost.sum())} of {int(alive.sum())} gradients underflowed"


def _modules(pipe) -> List[torch.nn.Module]:
    return [shim.module for shim in head_shims(pipe)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("name", component_params())
def test_half_weights_save_and_load(name, dtype, tmp_path):
    """A head whose weights were cast to fp16/bf16 (as a GPU user may do to
    save memory) saves, and loads into the fp32 module with the same values:
    the loaded pipeline predicts what the half-rounded weights predict in fp32."""
    nlp = spacy.load(trained_dir(name))
    pipe = nlp.get_pipe(name)
    for module in _modules(pipe):
        module.to(dtype)
    nlp.to_disk(tmp_path / "half")
    for module in _modules(pipe):
        module.float()  # the half values, upcast exactly: the reference
    loaded = spacy.load(tmp_path / "half")
    loaded_pipe = loaded.get_pipe(name)
    for module, reference in zip(_modules(loaded_pipe), _modules(pipe)):
        for (key, param), (_, expected) in zip(module.named_parameters(), reference.named_parameters()):
            assert param.dtype == torch.float32, key
            assert torch.equal(param.detach(), expected.detach()), key
    texts = [doc.text for doc in genia_docs(nlp, limit=6)]
    with one_torch_thread():
        expected = [[(s.start, s.end, s.label_) for s in doc.spans[pipe.key]] for doc in nlp.pipe(texts)]
        found = [[(s.start, s.end, s.label_) for s in doc.spans[pipe.key]] for doc in loaded.pipe(texts)]
    assert found == expected
    assert any(expected)


# mixed_precision = true without CUDA ------------------------------------------

needs_no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without CUDA")


@needs_no_cuda
@pytest.mark.parametrize("name", component_params())
def test_mixed_precision_on_cpu_fails_at_initialize(name):
    """Not Thinc's "Gradient scaling is not supported" at the first update:
    E231, naming the setting, when the pipeline is initialized."""
    nlp = spacy.blank("en")
    config = small_config(name)
    config["model"]["mixed_precision"] = True
    nlp.add_pipe(name, config=config)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    with pytest.raises(ValueError, match=r"E231.*mixed_precision = false"):
        nlp.initialize(lambda: examples)


@needs_no_cuda
def test_spacy_train_with_mixed_precision_on_cpu(tmp_path):
    convert(GENIA_TRAIN, tmp_path / "train.spacy", format="genia", limit=20)
    convert(GENIA_DEV, tmp_path / "dev.spacy", format="genia", limit=10)
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO_ROOT / "configs" / "crener.cfg"),
         "--output", str(tmp_path / "out"),
         "--paths.train", str(tmp_path / "train.spacy"), "--paths.dev", str(tmp_path / "dev.spacy"),
         "--components.crener.model.mixed_precision", "true"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env=user_env(),
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "E231" in output, output[-2000:]
    assert "Gradient scaling" not in output and "Initialized pipeline" not in output


@needs_no_cuda
@pytest.mark.parametrize("name", component_params())
def test_pipeline_with_mixed_precision_runs_on_cpu(name):
    """A pipeline configured with mixed precision (trained on a GPU) loads
    and predicts on a CPU, in fp32: the same spans as without it."""
    texts = sample_texts(10)
    with one_torch_thread():
        expected = predictions(spacy.load(trained_dir(name)).pipe(texts))
        nlp = spacy.load(trained_dir(name), config={"components": {name: {"model": {"mixed_precision": True}}}})
        assert nlp.config["components"][name]["model"]["mixed_precision"] is True
        assert predictions(nlp.pipe(texts)) == expected
