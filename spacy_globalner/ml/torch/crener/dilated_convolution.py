"""Multi-granularity dilated 2-D convolutions over a grid of token pairs."""
from typing import List, Sequence

import torch
from torch import nn
from torch.nn import functional as F


class DilatedConvolutions(nn.Module):
    """Depthwise 3 x 3 convolutions with growing dilation, GELU, outputs concatenated.

    As in W2NER (parallel=False) the convolutions are applied one after
    another (dilations 1, 2, 3 see 3 x 3, 7 x 7 and 13 x 13 neighbourhoods),
    and the output of every one is kept. With parallel=True each convolution
    reads the input grid itself, as in eq. (8) of the CRENER paper
    (Q^l = GELU(DConv_l(C))).
    Cells outside the sequence are zeroed after every step, so a padded batch
    gives each grid the values it has alone.

    Departure from the paper, both ways: the convolutions are depthwise (one
    3 x 3 filter per channel, as W2NER's code has them), not full.

    width (int): Channels of the grid.
    dilations (Sequence[int]): Dilation of each convolution.
    parallel (bool): Each convolution reads the input (the paper) rather
        than the previous convolution's output (W2NER).
    """

    def __init__(self, width: int, dilations: Sequence[int] = (1, 2, 3), parallel: bool = False):
        super().__init__()
        self.parallel = parallel
        self.convolutions = nn.ModuleList(
            nn.Conv2d(width, width, kernel_size=3, dilation=d, padding=d, groups=width) for d in dilations
        )
        self.width = width * len(dilations)

    def forward(self, grid: torch.Tensor, cell_mask: torch.Tensor) -> torch.Tensor:
        """grid (torch.Tensor): (batch, n, n, width), zero outside the sequence.
        cell_mask (torch.Tensor): Bool (batch, n, n), True inside the sequence.
        RETURNS (torch.Tensor): (batch, n, n, width * len(dilations)).
        """
        return torch.cat(self.blocks(grid, cell_mask), dim=-1)

    def blocks(self, grid: torch.Tensor, cell_mask: torch.Tensor) -> List[torch.Tensor]:
        """forward's output before its concatenation: one (batch, n, n,
        width) block per dilation, contiguous, for readers that take the
        blocks apart (concatenated_linear.linear_of_blocks).

        grid, cell_mask: as forward's.
        RETURNS (List[torch.Tensor]): One block per dilation, in order.
        """
        # Without autograd the mask applies in place, and not at all where
        # no cell of the batch is padding.
        inference = not torch.is_grad_enabled()
        inside = None
        if not (inference and bool(cell_mask.all())):
            inside = cell_mask[..., None].to(grid.dtype)
        x = grid
        outputs = []
        for convolution in self.convolutions:
            source = grid if self.parallel else x
            x = F.gelu(depthwise_convolution(convolution, source))
            if inside is not None:
                x = x.mul_(inside) if inference else x * inside
            outputs.append(x)
        return outputs


def depthwise_convolution(convolution: nn.Conv2d, grid: torch.Tensor) -> torch.Tensor:
    """A depthwise 3 x 3 convolution (padding = dilation) over a channels-last
    grid (batch, n, n, width), returning the same shape.

    Channels-last all the way: on CPU, depthwise convolution (and above all
    its backward) is an order of magnitude slower on NCHW-contiguous input.
    While autograd records on CPU, a dilation d > 1 runs as its d x d phases:
    the grid's cells (i, j) with i mod d = r and j mod d = s form a grid of
    their own, on which the dilated filter is an undilated one (padding 1).
    The phases are convolved as one batch and put back: the same products
    and sums, so the same function, but torch's CPU backward of a dilated
    depthwise convolution is slower than the undilated one on the phases.
    Without autograd the dilated convolution runs as it is: its forward is
    the faster of the two.

    convolution (nn.Conv2d): Depthwise (groups = channels), 3 x 3, stride 1,
        padding equal to its dilation.
    grid (torch.Tensor): (batch, n, n, width), channels last.
    RETURNS (torch.Tensor): (batch, n, n, width).
    """
    d = convolution.dilation[0]
    training = torch.is_grad_enabled() and (grid.requires_grad or convolution.weight.requires_grad)
    if d == 1 or not training or grid.device.type != "cpu":
        y = convolution(grid.permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last))
        return y.permute(0, 2, 3, 1)
    batch, n, _, width = grid.shape
    m = -(-n // d)  # rows (and columns) of each phase
    if m * d != n:
        grid = F.pad(grid, (0, 0, 0, m * d - n, 0, m * d - n))
    phases = grid.reshape(batch, m, d, m, d, width).permute(0, 2, 4, 1, 3, 5).reshape(batch * d * d, m, m, width)
    y = F.conv2d(phases.permute(0, 3, 1, 2), convolution.weight, convolution.bias, padding=1, groups=convolution.groups)
    y = y.permute(0, 2, 3, 1).reshape(batch, d, d, m, m, width).permute(0, 3, 1, 4, 2, 5)
    return y.reshape(batch, m * d, m * d, width)[:, :n, :n]
