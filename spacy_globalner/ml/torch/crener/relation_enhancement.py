"""Relation enhancement: token features read off the grid, refined, and fed back."""
import torch
from torch import nn
from torch.nn import functional as F


class RelationEnhancement(nn.Module):
    """One round of grid -> tokens -> grid refinement.

    The grid features are projected to tag-aware features (one channel per
    output tag) and max-pooled along each row and each column, giving every
    token the strongest evidence of each relation it heads or ends. An FFN
    maps that to token features, which attend to each other (self-attention)
    and to the token representations (cross-attention); GELU, residual and
    LayerNorm follow each attention. The result is added back to the grid
    through its row token and its column token.

    grid_width (int): Channels of the grid.
    token_width (int): Width of the token representations.
    tag_width (int): Width of the tag-aware projection (the number of tags).
    heads (int): Attention heads (must divide token_width).
    """

    def __init__(self, grid_width: int, token_width: int, tag_width: int, heads: int):
        super().__init__()
        self.to_tags = nn.Linear(grid_width, tag_width)
        self.ffn = nn.Sequential(
            nn.Linear(2 * tag_width, token_width), nn.GELU(), nn.Linear(token_width, token_width)
        )
        self.self_attention = nn.MultiheadAttention(token_width, heads, batch_first=True)
        self.self_norm = nn.LayerNorm(token_width)
        self.cross_attention = nn.MultiheadAttention(token_width, heads, batch_first=True)
        self.cross_norm = nn.LayerNorm(token_width)
        self.to_rows = nn.Linear(token_width, grid_width)
        self.to_columns = nn.Linear(token_width, grid_width, bias=False)

    def forward(
        self,
        grid: torch.Tensor,
        tokens: torch.Tensor,
        cell_mask: torch.Tensor,
        token_mask: torch.Tensor,
    ) -> torch.Tensor:
        """grid (torch.Tensor): (batch, n, n, grid_width).
        tokens (torch.Tensor): Token representations (batch, n, token_width).
        cell_mask (torch.Tensor): Bool (batch, n, n), True inside the sequence.
        token_mask (torch.Tensor): Bool (batch, n), True for real tokens.
        RETURNS (torch.Tensor): The enhanced grid, (batch, n, n, grid_width).
        """
        tags = self.to_tags(grid)
        tags = tags.masked_fill(~cell_mask[..., None], torch.finfo(tags.dtype).min)
        pooled = torch.cat((tags.amax(dim=2), tags.amax(dim=1)), dim=-1)
        pooled = pooled.masked_fill(~token_mask[..., None], 0.0)
        features = self.ffn(pooled)
        padding = ~token_mask
        attended, _ = self.self_attention(features, features, features, key_padding_mask=padding, need_weights=False)
        features = self.self_norm(features + F.gelu(attended))
        attended, _ = self.cross_attention(features, tokens, tokens, key_padding_mask=padding, need_weights=False)
        features = self.cross_norm(features + F.gelu(attended))
        rows = self.to_rows(features)[:, :, None, :]
        columns = self.to_columns(features)[:, None, :, :]
        return grid + rows + columns
