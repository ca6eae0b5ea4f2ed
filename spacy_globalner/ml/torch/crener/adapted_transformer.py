"""The adapted Transformer encoder of CRENER (section 4.1.2 of the paper):
un-scaled, direction- and distance-aware relative self-attention."""

import torch
from torch import nn


def relative_sinusoids(n: int, width: int, device: torch.device) -> torch.Tensor:
    """Sinusoid embedding of every relative distance d = j - i of an n-token
    sequence, d = -(n - 1) .. n - 1, shape (2n - 1, width), eq. (1):

        R_d = [..., sin(d / 10000^(2k / width)), cos(d / 10000^(2k / width)), ...]

    No parameters. sin is odd in d, so R tells left from right (direction)
    as well as how far (distance).
    """
    distance = torch.arange(-(n - 1), n, device=device, dtype=torch.float32)
    k = torch.arange(0, width, 2, device=device, dtype=torch.float32)
    angle = distance[:, None] / torch.pow(10000.0, k / width)[None, :]
    embedding = torch.stack((angle.sin(), angle.cos()), dim=-1).reshape(2 * n - 1, -1)
    return embedding[:, :width]


class RelativeSelfAttention(nn.Module):
    """Multi-head self-attention with relative positions in keys and values.

    Per head, with Q = H W_q, K = H W_k, V = H W_v and R_ij the sinusoid of
    j - i, eq. (2)-(3):

        A_ij = Q_i . K_j + Q_i . R_ij W_kR + u . K_j + v . R_ij W_kR
        out_i = sum_j softmax_j(A_ij) (V_j + R_ij W_vR)

    Un-scaled: no division by sqrt(d_k) (the paper finds the sharper
    attention better for NER). Padding keys are masked with the dtype's own
    minimum. Departures from the paper: the relative term in the values
    (R_ij W_vR, as in Shaw et al. 2018) is not in eq. (3); the issue asks for
    relative terms in keys and values. The scores and the softmax run in
    fp32 whatever the input's dtype: un-scaled dot products overflow fp16.

    Vectorised through the 2n - 1 distinct distances: the distance terms
    are scored once per distance and gathered to (i, j), and the attention
    weights are scattered back per distance for the value term, so no
    (n, n, width) tensor is built.

    width (int): Width of the token vectors.
    heads (int): Attention heads (must divide width).
    dropout (float): Dropout on the attention weights.
    """

    def __init__(self, width: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.width = width
        self.heads = heads
        self.head_width = width // heads
        self.qkv = nn.Linear(width, 3 * width)
        self.key_position = nn.Linear(width, width, bias=False)
        self.value_position = nn.Linear(width, width, bias=False)
        self.u = nn.Parameter(torch.zeros(heads, self.head_width))
        self.v = nn.Parameter(torch.zeros(heads, self.head_width))
        self.output = nn.Linear(width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, X: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        """X (torch.Tensor): (batch, n, width).
        token_mask (torch.Tensor): Bool (batch, n), True for real tokens.
        RETURNS (torch.Tensor): (batch, n, width).
        """
        batch, n, _ = X.shape
        h, d = self.heads, self.head_width
        q, k, v = self.qkv(X).view(batch, n, 3, h, d).unbind(dim=2)  # (batch, n, h, d) each
        R = relative_sinusoids(n, self.width, X.device).to(X.dtype)
        key_R = self.key_position(R).view(2 * n - 1, h, d)
        value_R = self.value_position(R).view(2 * n - 1, h, d)
        index = _distance_index(n, X.device).expand(batch, h, n, n)
        # At least fp32 (fp64 stays fp64), autocast or not.
        wide = torch.promote_types(X.dtype, torch.float32)
        with torch.autocast(X.device.type, enabled=False):
            q32 = q.to(wide)
            content = torch.einsum("bihd,bjhd->bhij", q32 + self.u.to(wide), k.to(wide))
            # Q_i . R_d W_kR + v . R_d W_kR for every distance d, gathered at d = j - i.
            by_distance = torch.einsum("bihd,rhd->bhir", q32 + self.v.to(wide), key_R.to(wide))
            scores = content + by_distance.gather(-1, index)
            scores = scores.masked_fill(~token_mask[:, None, None, :], torch.finfo(scores.dtype).min)
            weights = self.dropout(scores.softmax(dim=-1))
            attended = torch.einsum("bhij,bjhd->bihd", weights, v.to(wide))
            per_distance = weights.new_zeros(batch, h, n, 2 * n - 1).scatter(-1, index, weights)
            attended = attended + torch.einsum("bhir,rhd->bihd", per_distance, value_R.to(wide))
        return self.output(attended.reshape(batch, n, self.width).to(X.dtype))


def _distance_index(n: int, device: torch.device) -> torch.Tensor:
    """(n, n): j - i + n - 1, the row of distance j - i in relative_sinusoids."""
    positions = torch.arange(n, device=device)
    return positions[None, :] - positions[:, None] + n - 1


class AdaptedTransformerLayer(nn.Module):
    """Relative self-attention, Add & Norm, feed-forward, Add & Norm, and a
    skip connection around the whole block (Figure 3 of the paper).

    width (int): Width of the token vectors.
    heads (int): Attention heads (must divide width).
    dropout (float): Dropout after the attention and in the feed-forward.
    """

    def __init__(self, width: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.attention = RelativeSelfAttention(width, heads, dropout)
        self.attention_norm = nn.LayerNorm(width)
        self.feed_forward = nn.Sequential(
            nn.Linear(width, 2 * width), nn.GELU(), nn.Dropout(dropout), nn.Linear(2 * width, width)
        )
        self.output_norm = nn.LayerNorm(width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, X: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        """X (torch.Tensor): (batch, n, width); token_mask: bool (batch, n).
        RETURNS (torch.Tensor): (batch, n, width), zero at padding.
        """
        hidden = self.attention_norm(X + self.dropout(self.attention(X, token_mask)))
        hidden = self.output_norm(hidden + self.dropout(self.feed_forward(hidden)))
        return (X + hidden).masked_fill(~token_mask[..., None], 0.0)


class AdaptedTransformer(nn.Module):
    """A stack of AdaptedTransformerLayer.

    width (int): Width of the token vectors.
    depth (int): Number of layers.
    heads (int): Attention heads (must divide width).
    dropout (float): Dropout inside each layer.
    """

    def __init__(self, width: int, depth: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.layers = nn.ModuleList(AdaptedTransformerLayer(width, heads, dropout) for _ in range(depth))

    def forward(self, X: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            X = layer(X, token_mask)
        return X


__all__ = ["AdaptedTransformer", "AdaptedTransformerLayer", "RelativeSelfAttention", "relative_sinusoids"]
