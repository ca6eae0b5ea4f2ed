"""Multi-granularity dilated 2-D convolutions over a grid of token pairs."""
from typing import Sequence

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
        inside = cell_mask[..., None].to(grid.dtype)
        x = grid
        outputs = []
        for convolution in self.convolutions:
            # Channels-last all the way: on CPU, depthwise convolution (and
            # above all its backward) is an order of magnitude slower on
            # NCHW-contiguous input.
            source = grid if self.parallel else x
            y = convolution(source.permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last))
            x = F.gelu(y.permute(0, 2, 3, 1)) * inside
            outputs.append(x)
        return torch.cat(outputs, dim=-1)
