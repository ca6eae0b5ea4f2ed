"""A depthwise 3 x 3 dilated convolution whose backward is as fast as its forward on CPU.

Autograd's own backward of a depthwise convolution (mkldnn's, channels-last)
took 17-25x the forward's time at dilation 2 and 3 on one CPU thread, and
was the largest single op of a `crener` update after the matrix products.
Both gradients are convolutions themselves:
- the input's is the forward convolution of the output gradient with the
  kernel flipped (same dilation and padding);
- the kernel's is a convolution's weight gradient at dilation 1, once the
  grids are split into their dilation x dilation phase grids: a dilated
  convolution reads, for each output cell, cells of the same phase only.
`python project/scripts/depthwise_speed.py` times the two.
"""
from typing import Optional

import torch
from torch.nn import functional
from torch.nn.grad import conv2d_weight


def depthwise_convolution(
    x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], dilation: int
) -> torch.Tensor:
    """The depthwise convolution of x (batch, channels, n, n) with a (channels,
    1, 3, 3) kernel at `dilation`, zero-padded to keep the grid's size: what
    `nn.Conv2d(c, c, 3, dilation=d, padding=d, groups=c)` computes."""
    return DepthwiseConvolution.apply(x, weight, bias, dilation)


class DepthwiseConvolution(torch.autograd.Function):
    """Forward as torch's; backward as two convolutions (see the module)."""

    @staticmethod
    def forward(ctx, x, weight, bias, dilation):
        ctx.save_for_backward(x, weight)
        ctx.dilation = dilation
        ctx.bias_dtype = None if bias is None else bias.dtype
        return functional.conv2d(x, weight, bias, padding=dilation, dilation=dilation, groups=x.shape[1])

    @staticmethod
    def backward(ctx, d_y):
        x, weight = ctx.saved_tensors
        d = ctx.dilation
        n_channels = x.shape[1]
        # In the gradient's dtype: under autocast the forward ran in half
        # precision, and the kernel is an fp32 parameter.
        dtype = d_y.dtype
        d_x = d_weight = d_bias = None
        if ctx.needs_input_grad[0]:
            flipped = weight.to(dtype).flip(2, 3)
            d_x = functional.conv2d(d_y, flipped, padding=d, dilation=d, groups=n_channels).to(x.dtype)
        if ctx.needs_input_grad[1]:
            d_weight = _kernel_gradient(x.to(dtype), d_y, weight.shape, d).to(weight.dtype)
        if ctx.bias_dtype is not None and ctx.needs_input_grad[2]:
            d_bias = d_y.sum((0, 2, 3), dtype=torch.promote_types(dtype, torch.float32)).to(ctx.bias_dtype)
        return d_x, d_weight, d_bias, None


def _kernel_gradient(x: torch.Tensor, d_y: torch.Tensor, kernel_shape, dilation: int) -> torch.Tensor:
    """d weight of the dilated depthwise convolution, as the weight gradient
    of an undilated one over the phase grids (cells (i, j) with the same i
    mod d and j mod d)."""
    if dilation > 1:
        x, d_y = _phase_grids(x, dilation), _phase_grids(d_y, dilation)
    return conv2d_weight(x, kernel_shape, d_y, padding=1, groups=x.shape[1])


def _phase_grids(grid: torch.Tensor, d: int) -> torch.Tensor:
    """(batch * d * d, channels, ceil(n / d), ceil(m / d)), channels-last:
    grid[b, :, i * d + r, j * d + s] at [(b * d + r) * d + s, :, i, j]. The
    grid is zero-padded to multiples of d first; the padding's cells, zero in
    both grids, add nothing to the gradient."""
    n_batch, n_channels, n, m = grid.shape
    pad_n, pad_m = -n % d, -m % d
    rows_last = grid.permute(0, 2, 3, 1)
    if pad_n or pad_m:
        rows_last = functional.pad(rows_last, (0, 0, 0, pad_m, 0, pad_n))
    n_q, m_q = (n + pad_n) // d, (m + pad_m) // d
    phases = rows_last.reshape(n_batch, n_q, d, m_q, d, n_channels).permute(0, 2, 4, 1, 3, 5)
    return phases.reshape(n_batch * d * d, n_q, m_q, n_channels).permute(0, 3, 1, 2)
