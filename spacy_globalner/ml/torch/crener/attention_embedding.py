"""The attention embedding E^a of CRENER's grid (section 4.2.2 of the paper)."""
import torch
from torch import nn


class AttentionEmbedding(nn.Module):
    """E^a_ij: how much token i attends to token j, one channel per head.

    The paper says only that E^a "is derived from the raw input through an
    attention layer, which assigns weights to input features based on their
    relevance", of width d_Ea. Reconstructed here as the softmax weights of
    a d_Ea-head scaled dot-product attention over the token vectors, row i
    the query: E^a_ij = softmax_j(q_i^h . k_j^h / sqrt(d)) for head h. The
    weights are scaled by the sequence length, so that a uniform row is 1
    whatever the window's length, and zero outside the sequence. The scores
    and the softmax run in fp32.

    token_width (int): Width of the token vectors.
    width (int): d_Ea, the number of heads (channels of E^a).
    key_width (int): Width of each head's queries and keys.
    """

    def __init__(self, token_width: int, width: int, key_width: int = 16):
        super().__init__()
        self.width = width
        self.key_width = key_width
        self.query = nn.Linear(token_width, width * key_width)
        self.key = nn.Linear(token_width, width * key_width)

    def forward(self, tokens: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        """tokens (torch.Tensor): (batch, n, token_width).
        token_mask (torch.Tensor): Bool (batch, n), True for real tokens.
        RETURNS (torch.Tensor): E^a, (batch, n, n, width) in the tokens' dtype.
        """
        batch, n, _ = tokens.shape
        q = self.query(tokens).view(batch, n, self.width, self.key_width)
        k = self.key(tokens).view(batch, n, self.width, self.key_width)
        wide = torch.promote_types(tokens.dtype, torch.float32)
        with torch.autocast(tokens.device.type, enabled=False):
            scores = torch.einsum("bihd,bjhd->bijh", q.to(wide), k.to(wide)) / self.key_width**0.5
            scores = scores.masked_fill(~token_mask[:, None, :, None], torch.finfo(scores.dtype).min)
            lengths = token_mask.sum(dim=1).to(scores.dtype)
            weights = scores.softmax(dim=2) * lengths[:, None, None, None]
            weights = weights.masked_fill(~token_mask[:, :, None, None], 0.0)
        return weights.to(tokens.dtype)
