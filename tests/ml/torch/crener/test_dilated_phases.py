"""A dilated depthwise convolution run as its d x d undilated phases (while
autograd records) computes what the dilated convolution does: values and
gradients against torch's dilated convolution, in fp64, on random grids
whose side is and is not a multiple of the dilation."""
import pytest
import torch
from torch import nn

from spacy_globalner.ml.torch.crener.dilated_convolution import DilatedConvolutions, depthwise_convolution


def dilated(convolution: nn.Conv2d, grid: torch.Tensor) -> torch.Tensor:
    """The formula the phases replace: the dilated convolution itself."""
    return convolution(grid.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)


@pytest.mark.parametrize("dilation", [1, 2, 3, 4])
@pytest.mark.parametrize("n", [1, 2, 5, 6, 12, 13])
def test_phases_give_the_dilated_convolution_values_and_gradients(dilation, n):
    torch.manual_seed(n * 10 + dilation)
    convolution = nn.Conv2d(5, 5, kernel_size=3, dilation=dilation, padding=dilation, groups=5).double()
    grid = torch.randn(3, n, n, 5, dtype=torch.float64, requires_grad=True)
    new = depthwise_convolution(convolution, grid)
    old = dilated(convolution, grid)
    assert new.shape == old.shape == grid.shape
    assert torch.allclose(new, old, atol=1e-12)
    weights = torch.randn(new.shape, dtype=torch.float64)
    tensors = [grid, convolution.weight, convolution.bias]
    new_grads = torch.autograd.grad((new * weights).sum(), tensors)
    old_grads = torch.autograd.grad((old * weights).sum(), tensors)
    for a, b in zip(new_grads, old_grads):
        assert torch.allclose(a, b, atol=1e-10)


def test_phases_run_only_while_autograd_records():
    torch.manual_seed(0)
    convolution = nn.Conv2d(4, 4, kernel_size=3, dilation=3, padding=3, groups=4).double()
    grid = torch.randn(2, 7, 7, 4, dtype=torch.float64)
    with torch.no_grad():
        predicted = depthwise_convolution(convolution, grid)
    trained = depthwise_convolution(convolution, grid)
    assert trained.grad_fn is not None and predicted.grad_fn is None
    assert torch.allclose(predicted, trained, atol=1e-12)


@pytest.mark.parametrize("parallel", [False, True])
def test_dilated_convolutions_train_and_predict_alike(parallel):
    torch.manual_seed(0)
    convolutions = DilatedConvolutions(4, (1, 2, 3), parallel=parallel).double()
    lengths = torch.tensor([9, 4])
    token_mask = torch.arange(9)[None, :] < lengths[:, None]
    cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
    grid = torch.randn(2, 9, 9, 4, dtype=torch.float64).masked_fill(~cell_mask[..., None], 0.0)
    with torch.no_grad():
        predicted = convolutions(grid, cell_mask)
    trained = convolutions(grid, cell_mask)
    assert torch.allclose(predicted, trained, atol=1e-12)
