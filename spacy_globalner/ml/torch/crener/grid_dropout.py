"""Dropout for the token-pair grid, with a mask that is cheap to draw on CPU."""
import torch
from torch import nn


class GridDropout(nn.Dropout):
    """nn.Dropout with its keep mask drawn from uniform floats on CPU.

    The mask is the same Bernoulli(1 - p) draw, scaled by 1 / (1 - p), but
    torch's CPU dropout draws it with `bernoulli_`, which is several times
    slower than `rand_like` and a comparison: on a (8, 43, 43, 144) grid, 36 ms
    against 12 ms for forward and backward together. The mask is kept in the
    input's dtype (4 bytes a cell in training, where nn.Dropout keeps 1).
    Other devices use nn.Dropout's fused kernel.
    """

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0 or X.device.type != "cpu":
            return super().forward(X)
        keep = (torch.rand_like(X) >= self.p).to(X.dtype).mul_(1.0 / (1.0 - self.p))
        return X * keep
