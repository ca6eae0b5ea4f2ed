"""A biaffine scorer of token pairs."""
from typing import Optional

import torch
from torch import nn

from .band import gather_columns


class Biaffine(nn.Module):
    """s(i, j, o) = [x_i; 1]^T U_o [y_j; 1] for every pair of tokens and output.

    width (int): Width of x and y.
    n_out (int): Number of scores per pair.
    """

    def __init__(self, width: int, n_out: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_out, width + 1, width + 1))
        nn.init.xavier_normal_(self.weight)

    def forward(self, x: torch.Tensor, y: torch.Tensor, band: Optional[int] = None) -> torch.Tensor:
        """x (torch.Tensor): Row vectors (batch, n, width).
        y (torch.Tensor): Column vectors (batch, n, width).
        band (Optional[int]): Score the cells within band of the diagonal
            only, in band form (see band.py); None: every pair.
        RETURNS (torch.Tensor): Scores (batch, n, n, n_out), or (batch, n,
            2 * band + 1, n_out) with band.
        """
        x = torch.cat((x, torch.ones_like(x[..., :1])), dim=-1)
        y = torch.cat((y, torch.ones_like(y[..., :1])), dim=-1)
        # (x U) first: (batch, n, n_out, width + 1) is small next to the grid.
        projected = torch.einsum("bxi,oij->bxoj", x, self.weight)
        if band is None:
            return torch.einsum("bxoj,byj->bxyo", projected, y)
        return torch.einsum("bxoj,bxkj->bxko", projected, gather_columns(y, band))
