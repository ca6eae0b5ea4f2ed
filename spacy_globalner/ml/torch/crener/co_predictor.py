"""The co-predictor: biaffine token-pair scores plus an MLP on the grid, summed."""
from typing import Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from .band import gather_columns
from .biaffine import Biaffine

LinearWeights = Tuple[torch.Tensor, torch.Tensor]


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

    def forward(
        self,
        tokens: torch.Tensor,
        grid: torch.Tensor,
        first_layer: Optional[LinearWeights] = None,
        rows: Optional[torch.Tensor] = None,
        columns: Optional[torch.Tensor] = None,
        hidden: Optional[torch.Tensor] = None,
        band: Optional[int] = None,
    ) -> torch.Tensor:
        """tokens (torch.Tensor): (batch, n, token_width).
        grid (torch.Tensor): (batch, n, n, grid_width), or the features that
            first_layer reads.
        first_layer (Optional[Tuple[torch.Tensor, torch.Tensor]]): Weight and
            bias that replace the grid MLP's first linear layer (from
            fold_tag_projection); None uses the layer itself.
        rows, columns (Optional[torch.Tensor]): (batch, n, grid_width) biases
            of each row and each column of the grid (the relation
            enhancement's): the MLP reads grid + rows[:, :, None] +
            columns[:, None], its first layer each part apart, so that sum
            is never materialised. None (both) for none.
        hidden (Optional[torch.Tensor]): The first layer's output on the grid
            (without rows and columns), (batch, n, n, hidden_width), where the
            caller computed it (in one product with other linear maps of the
            grid); the grid is then not read.
        band (Optional[int]): Score the band of the grid only (see band.py):
            grid and hidden are in band form, (batch, n, 2 * band + 1, ...),
            and so is the output. Each band cell gets the score its cell of
            the whole grid gets. None: the whole grid.
        RETURNS (torch.Tensor): (batch, n, n, n_out), or (batch, n, 2 * band
            + 1, n_out) with band.
        """
        first, *rest = self.grid_mlp
        weight, bias = self.first_layer(first_layer)
        if hidden is None:
            hidden = F.linear(grid, weight, bias)
        if rows is not None:
            column_bias = F.linear(columns, weight)
            # A band cell's column token varies along the row: gathered per cell.
            column_bias = column_bias[:, None] if band is None else gather_columns(column_bias, band)
            hidden = hidden + F.linear(rows, weight)[:, :, None, :] + column_bias
        for layer in rest:
            hidden = layer(hidden)
        return self.biaffine(self.subject(tokens), self.object(tokens), band) + hidden

    def first_layer(self, first_layer: Optional[LinearWeights] = None) -> LinearWeights:
        """Weight and bias of the grid MLP's first linear layer: its own, or
        first_layer where given (see forward)."""
        first = self.grid_mlp[0]
        return (first.weight, first.bias) if first_layer is None else first_layer


def fold_tag_projection(first: nn.Linear, tags: nn.Module, grid_width: int) -> LinearWeights:
    """Fold a linear layer that reads [grid; TF(grid)] (or TF(grid) alone,
    grid_width = 0) into one linear layer of the grid itself.

    The tag-aware features TF = T grid + t are linear in the grid, so
    W [grid; TF] + b = (W_grid + W_tags T) grid + (W_tags t + b): the same
    function, without materialising TF or the wider concatenated grid. The
    parameters, and so saved weights, stay those of `first` and `tags`.
    Computed in fp32 outside autocast; the layer casts the result.

    first (nn.Linear): The layer, in_features = grid_width + tags.width.
    tags (TagProjection): The projection whose output the layer reads.
    grid_width (int): Channels of the grid that the layer reads beside TF.
    RETURNS (Tuple[torch.Tensor, torch.Tensor]): The folded weight
        (out_features, tags' input width) and bias.
    """
    with torch.autocast(first.weight.device.type, enabled=False):
        tag_weight, tag_bias = tags.as_linear()
        grid_part, tag_part = first.weight[:, :grid_width], first.weight[:, grid_width:]
        weight = tag_part @ tag_weight
        if grid_width:
            weight = weight + grid_part
        return weight, first.bias + tag_part @ tag_bias
