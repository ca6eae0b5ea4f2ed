"""The co-predictor: biaffine token-pair scores plus an MLP on the grid, summed."""
import torch
from torch import nn

from .biaffine import Biaffine


class CoPredictor(nn.Module):
    """Score each cell's tags from its two tokens and from its grid features.

    token_width (int): Width of the token representations.
    grid_width (int): Channels of the grid.
    biaffine_width (int): Width of the subject/object projections scored biaffinely.
    hidden_width (int): Hidden width of the grid MLP.
    n_out (int): Scores per cell.
    dropout (float): Dropout inside both scorers.
    """

    def __init__(
        self,
        token_width: int,
        grid_width: int,
        biaffine_width: int,
        hidden_width: int,
        n_out: int,
        dropout: float = 0.1,
    ):
        super().__init__()
        self.subject = nn.Sequential(nn.Linear(token_width, biaffine_width), nn.GELU(), nn.Dropout(dropout))
        self.object = nn.Sequential(nn.Linear(token_width, biaffine_width), nn.GELU(), nn.Dropout(dropout))
        self.biaffine = Biaffine(biaffine_width, n_out)
        self.grid_mlp = nn.Sequential(
            nn.Linear(grid_width, hidden_width), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden_width, n_out)
        )

    def forward(self, tokens: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
        """tokens (torch.Tensor): (batch, n, token_width).
        grid (torch.Tensor): (batch, n, n, grid_width).
        RETURNS (torch.Tensor): (batch, n, n, n_out).
        """
        return self.biaffine(self.subject(tokens), self.object(tokens)) + self.grid_mlp(grid)
