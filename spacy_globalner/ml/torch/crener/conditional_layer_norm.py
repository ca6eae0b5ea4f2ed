"""Conditional layer normalisation: build an n x n grid from two token sequences."""
import torch
from torch import nn
from torch.nn import functional as F


class ConditionalLayerNorm(nn.Module):
    """V_ij = gamma(c_i) * (x_j - mean(x_j)) / std(x_j) + beta(c_i or x_j).

    The gain is generated from the condition (the row token's subject vector
    c_i) and the column token's object vector x_j is normalised. The bias
    comes from the condition too (bias_from="subject", W2NER's form) or from
    the object vector x_j (bias_from="object", eq. (5) of the CRENER paper:
    lambda_ij = W_beta h_j^o + b_beta). The generators start at zero, so at
    initialisation every row holds a plain layer norm of the columns.

    width (int): Width of the condition, the input and the output.
    bias_from (str): "subject" (the row's condition) or "object" (the column).
    eps (float): Added to the variance for stability.
    """

    def __init__(self, width: int, bias_from: str = "subject", eps: float = 1e-5):
        super().__init__()
        if bias_from not in ("subject", "object"):
            raise ValueError(f"bias_from must be 'subject' or 'object', got {bias_from!r}")
        self.bias_from = bias_from
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
        if self.bias_from == "object":
            beta = (self.bias + self.to_bias(x))[:, None, :, :]
        else:
            beta = (self.bias + self.to_bias(condition))[:, :, None, :]
        return gamma[:, :, None, :] * normed[:, None, :, :] + beta
