"""Multi-granularity dilated 2-D convolutions over a grid of token pairs."""
from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F


class DilatedConvolutions(nn.Module):
    """Depthwise 3 x 3 convolutions with growing dilation, GELU, outputs concatenated.

    As in W2NER the convolutions are applied one after another (dilations 1, 2,
    3 see 3 x 3, 7 x 7 and 13 x 13 neighbourhoods), and the output of every
    one is kept. Cells outside the sequence are zeroed after every step, so a
    padded batch gives each grid the values it has alone.

    width (int): Channels of the grid.
    dilations (Sequence[int]): Dilation of each convolution.
    """

    def __init__(self, width: int, dilations: Sequence[int] = (1, 2, 3)):
        super().__init__()
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
            y = convolution(x.permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last))
            x = F.gelu(y.permute(0, 2, 3, 1)) * inside
            outputs.append(x)
        return torch.cat(outputs, dim=-1)
