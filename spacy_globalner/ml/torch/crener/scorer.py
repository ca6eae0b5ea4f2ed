"""The CRENER grid scorer as a plain torch module (no spaCy, no Thinc).

token vectors -> (BiLSTM) -> subject/object projections -> conditional layer
norm grid + distance/region embeddings -> MLP -> dilated convolutions ->
relation enhancement rounds -> co-predictor (biaffine + grid MLP).

The output has one channel per tag plus a threshold class in front (channel 0):
learned per cell, or fixed at 0.
"""
import warnings
from typing import Sequence

import torch
from torch import nn

from .co_predictor import CoPredictor
from .conditional_layer_norm import ConditionalLayerNorm
from .context_encoder import BiLSTMContext
from .dilated_convolution import DilatedConvolutions
from .grid_position import GridPosition
from .relation_enhancement import RelationEnhancement


class CRENERScorer(nn.Module):
    """Score every tag of every token pair of each sequence in a padded batch.

    n_tags (int): Number of tags per cell (without the threshold class).
    token_width (int): Width of the token representations.
    context_depth (int): BiLSTM layers over the token vectors; 0 for none.
    grid_width (int): Width of the conditional layer norm grid.
    distance_width (int): Width of the relative distance embedding.
    region_width (int): Width of the region embedding.
    conv_width (int): Channels going into the dilated convolutions.
    dilations (Sequence[int]): Dilation of each convolution.
    enhancement_rounds (int): Relation enhancement rounds; 0 for none.
    attention_heads (int): Heads of the enhancement's attention.
    biaffine_width (int): Width of the biaffine scorer's projections.
    predictor_width (int): Hidden width of the co-predictor's grid MLP.
    learned_threshold (bool): Predict the threshold class per cell; else it is 0.
    dropout (float): Dropout rate (the Thinc layer updates it from the pipe).
    """

    def __init__(
        self,
        n_tags: int,
        *,
        token_width: int = 128,
        context_depth: int = 1,
        grid_width: int = 64,
        distance_width: int = 16,
        region_width: int = 16,
        conv_width: int = 48,
        dilations: Sequence[int] = (1, 2, 3),
        enhancement_rounds: int = 1,
        attention_heads: int = 4,
        biaffine_width: int = 64,
        predictor_width: int = 64,
        learned_threshold: bool = True,
        dropout: float = 0.1,
    ):
        super().__init__()
        self.n_tags = n_tags
        self.learned_threshold = learned_threshold
        n_out = n_tags + int(learned_threshold)
        with warnings.catch_warnings():
            # The tok2vec's width is only known from the first batch (or the
            # weights being loaded), so the first projection is lazy.
            warnings.filterwarnings("ignore", message="Lazy modules")
            self.input = nn.LazyLinear(token_width)
        self.input_dropout = nn.Dropout(dropout)
        self.context = BiLSTMContext(token_width, context_depth) if context_depth > 0 else None
        self.subject = nn.Linear(token_width, grid_width)
        self.object = nn.Linear(token_width, grid_width)
        self.layer_norm = ConditionalLayerNorm(grid_width)
        self.position = GridPosition(distance_width, region_width)
        self.reduce = nn.Sequential(
            nn.Linear(grid_width + self.position.width, conv_width), nn.GELU(), nn.Dropout(dropout)
        )
        self.convolutions = DilatedConvolutions(conv_width, dilations)
        self.enhancements = nn.ModuleList(
            RelationEnhancement(self.convolutions.width, token_width, n_out, attention_heads)
            for _ in range(enhancement_rounds)
        )
        self.predictor = CoPredictor(
            token_width, self.convolutions.width, biaffine_width, predictor_width, n_out, dropout
        )

    def set_dropout_rate(self, rate: float) -> None:
        """Set the rate of every dropout layer (spaCy sets it per update)."""
        for module in self.modules():
            if isinstance(module, nn.Dropout):
                module.p = rate

    def forward(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """X (torch.Tensor): Padded token vectors (batch, n, n_in).
        lengths (torch.Tensor): Real length of each sequence (batch,), all >= 1.
        RETURNS (torch.Tensor): Logits (batch, n, n, 1 + n_tags), channel 0 the
            threshold class. Cells outside a sequence hold arbitrary values.
        """
        n = X.shape[1]
        token_mask = torch.arange(n, device=X.device)[None, :] < lengths.to(X.device)[:, None]
        cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
        tokens = self.input_dropout(self.input(X))
        if self.context is not None:
            tokens = self.context(tokens, lengths)
        grid = self.layer_norm(self.object(tokens), self.subject(tokens))
        position = self.position(n, X.device).to(grid.dtype)
        grid = torch.cat((grid, position.expand(grid.shape[0], -1, -1, -1)), dim=-1)
        grid = self.reduce(grid).masked_fill(~cell_mask[..., None], 0.0)
        grid = self.convolutions(grid, cell_mask)
        for enhancement in self.enhancements:
            grid = enhancement(grid, tokens, cell_mask, token_mask)
        scores = self.predictor(tokens, grid)
        if not self.learned_threshold:
            scores = torch.cat((torch.zeros_like(scores[..., :1]), scores), dim=-1)
        return scores
