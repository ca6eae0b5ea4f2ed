"""Conditional layer normalisation: build an n x n grid from two token sequences."""
import torch
from torch import nn
from torch.nn import functional as F


class ConditionalLayerNorm(nn.Module):
    """V_ij = gamma(c_i) * (x_j - mean(x_j)) / std(x_j) + beta(c_i).

    Both the gain and the bias are generated from the condition (the row
    token's subject vector c_i), as in W2NER; the column token's object vector
    x_j is normalised. The generators start at zero, so at initialisation every
    row holds a plain layer norm of the columns.

    width (int): Width of the condition, the input and the output.
    eps (float): Added to the variance for stability.
    """

    def __init__(self, width: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.gain = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))
        self.to_gain = nn.Linear(width, width, bias=False)
        self.to_bias = nn.Linear(width, width, bias=False)
        nn.init.zeros_(self.to_gain.weight)
        nn.init.zeros_(self.to_bias.weight)

    def forward(self, x: torch.Tensor, condition: torch.Tensor) -> torch.Tensor:
        """x (torch.Tensor): Column (object) vectors (batch, n, width).
        condition (torch.Tensor): Row (subject) vectors (batch, n, width).
        RETURNS (torch.Tensor): The grid (batch, n, n, width), row i from condition i.
        """
        normed = F.layer_norm(x, x.shape[-1:], eps=self.eps)
        gamma = self.gain + self.to_gain(condition)
        beta = self.bias + self.to_bias(condition)
        return gamma[:, :, None, :] * normed[:, None, :, :] + beta[:, :, None, :]
