"""The depthwise dilated convolution with a backward of two convolutions
gives what nn.Conv2d gives, forward and backward."""
import pytest
import torch

from spacy_globalner.ml.torch.crener.depthwise_convolution import _phase_grids, depthwise_convolution


def reference_and_ours(n_batch, n, n_channels, dilation, dtype=torch.float64, channels_last=True):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(n_channels, n_channels, 3, dilation=dilation, padding=dilation, groups=n_channels).to(dtype)
    x = torch.randn(n_batch, n_channels, n, n, dtype=dtype)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    d_y = torch.randn(n_batch, n_channels, n, n, dtype=dtype)
    results = []
    for run in (conv, lambda x: depthwise_convolution(x, conv.weight, conv.bias, dilation)):
        x_leaf = x.clone().requires_grad_()
        conv.zero_grad(set_to_none=True)
        y = run(x_leaf)
        y.backward(d_y)
        results.append((y.detach(), x_leaf.grad, conv.weight.grad.clone(), conv.bias.grad.clone()))
    return results


@pytest.mark.parametrize("dilation", [1, 2, 3, 4])
@pytest.mark.parametrize("n", [1, 5, 9, 11])
@pytest.mark.parametrize("channels_last", [True, False])
def test_output_and_gradients_equal_torch_conv(dilation, n, channels_last):
    """Grids narrower than the dilation and sizes it does not divide included."""
    theirs, ours = reference_and_ours(3, n, 4, dilation, channels_last=channels_last)
    for name, expected, got in zip(("output", "input", "weight", "bias"), theirs, ours):
        torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-10, msg=name)


def test_gradcheck_without_bias():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 7, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(3, 1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w: depthwise_convolution(x, w, None, 2), (x, weight))


def test_phase_grids_hold_each_phase():
    grid = torch.arange(2 * 3 * 5 * 5, dtype=torch.float32).reshape(2, 3, 5, 5)
    phases = _phase_grids(grid, 2)  # padded to 6 x 6: 3 x 3 cells per phase
    assert phases.shape == (8, 3, 3, 3)
    for b in range(2):
        for r in range(2):
            for s in range(2):
                phase = phases[(b * 2 + r) * 2 + s]
                expected = torch.zeros(3, 3, 3)
                cells = grid[b, :, r::2, s::2]
                expected[:, : cells.shape[1], : cells.shape[2]] = cells
                torch.testing.assert_close(phase, expected)


def test_under_cpu_autocast_gradients_keep_the_parameters_dtype():
    """As under CUDA autocast with mixed_precision: the forward runs in half
    precision, the gradients come back in fp32 for fp32 parameters."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(4, 4, 3, dilation=2, padding=2, groups=4)
    x = torch.randn(2, 4, 9, 9).contiguous(memory_format=torch.channels_last).requires_grad_()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = depthwise_convolution(x, conv.weight, conv.bias, 2)
        expected = conv(x)
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y, expected)
    y.float().sum().backward()
    assert x.grad.dtype == torch.float32 and conv.weight.grad.dtype == torch.float32
    assert conv.bias.grad.dtype == torch.float32
    x32 = x.detach().clone().requires_grad_()
    weight32 = conv.weight.detach().clone().requires_grad_()
    torch.nn.functional.conv2d(x32, weight32, conv.bias.detach(), padding=2, dilation=2, groups=4).sum().backward()
    torch.testing.assert_close(x.grad, x32.grad, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(conv.weight.grad, weight32.grad, rtol=2e-2, atol=2e-1)
