"""Relation enhancement: token features read off the grid, refined, and fed back."""
from typing import Optional, Tuple

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
        rows, columns = self.biases(grid, tokens, cell_mask, token_mask)
        return grid + rows[:, :, None, :] + columns[:, None, :, :]

    def biases(
        self,
        grid: torch.Tensor,
        tokens: torch.Tensor,
        cell_mask: torch.Tensor,
        token_mask: torch.Tensor,
        rows: Optional[torch.Tensor] = None,
        columns: Optional[torch.Tensor] = None,
        tags: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """The round as row and column biases of the grid, so that the
        enhanced grid (forward's output) need not be materialised: forward
        is grid + rows[:, :, None] + columns[:, None]. Every reader of the
        enhanced grid starts with a linear layer, which reads the three parts
        apart (CoPredictor.forward) at a fraction of the grid's width.

        grid, tokens, cell_mask, token_mask: as forward's.
        rows, columns (Optional[torch.Tensor]): (batch, n, grid_width), the
            biases of the rounds before, which the grid this round reads
            carries; None for the first round.
        tags (Optional[torch.Tensor]): self.to_tags(grid), (batch, n, n,
            tag_width), where the caller computed it (in one product with
            other linear maps of the grid).
        RETURNS (Tuple[torch.Tensor, torch.Tensor]): The biases with this
            round's added, (batch, n, grid_width) each.
        """
        if tags is None:
            tags = self.to_tags(grid)
        if rows is not None:
            weight = self.to_tags.weight
            tags = tags + F.linear(rows, weight)[:, :, None, :] + F.linear(columns, weight)[:, None, :, :]
        tags = tags.masked_fill(~cell_mask[..., None], torch.finfo(tags.dtype).min)
        pooled = torch.cat((tags.amax(dim=2), tags.amax(dim=1)), dim=-1)
        pooled = pooled.masked_fill(~token_mask[..., None], 0.0)
        features = self.ffn(pooled)
        padding = ~token_mask
        attended, _ = self.self_attention(features, features, features, key_padding_mask=padding, need_weights=False)
        features = self.self_norm(features + F.gelu(attended))
        attended, _ = self.cross_attention(features, tokens, tokens, key_padding_mask=padding, need_weights=False)
        features = self.cross_norm(features + F.gelu(attended))
        new_rows, new_columns = self.to_rows(features), self.to_columns(features)
        if rows is None:
            return new_rows, new_columns
        return rows + new_rows, columns + new_columns


class TagProjection(nn.Module):
    """Tag-aware grid features, one projection per dilation rate, eq. (9)-(10):
    TF_l(i, j) = W_l Q^l_ij + b_l, concatenated over the rates.

    Departure from the paper: eq. (10) writes TF as the concatenation of four
    tag blocks (NNC, PNC, HTC, THC) of width d_r; here each dilation rate's
    block has one channel per output tag (d_r = n_out, which "aligns the
    number of tags"), so TF has len(dilations) * n_out channels.

    conv_width (int): Channels of each dilation rate's output Q^l.
    n_rates (int): Number of dilation rates (blocks of the grid).
    n_out (int): Tag-aware channels per rate.
    """

    def __init__(self, conv_width: int, n_rates: int, n_out: int):
        super().__init__()
        self.n_rates = n_rates
        self.conv_width = conv_width
        self.weight = nn.Parameter(torch.empty(n_rates, conv_width, n_out))
        self.bias = nn.Parameter(torch.zeros(n_rates, n_out))
        bound = conv_width**-0.5
        nn.init.uniform_(self.weight, -bound, bound)
        self.width = n_rates * n_out

    def forward(self, grid: torch.Tensor) -> torch.Tensor:
        """grid (torch.Tensor): (batch, n, n, n_rates * conv_width), the rates'
            outputs side by side (DilatedConvolutions' output).
        RETURNS (torch.Tensor): TF, (batch, n, n, n_rates * n_out).
        """
        blocks = grid.unflatten(-1, (self.n_rates, self.conv_width))
        tags = torch.einsum("bxylc,lco->bxylo", blocks, self.weight.to(grid.dtype)) + self.bias.to(grid.dtype)
        return tags.flatten(-2)

    def as_linear(self) -> Tuple[torch.Tensor, torch.Tensor]:
        """The projection as one linear map of the whole grid:
        F.linear(grid, weight, bias) == self(grid), with weight block-diagonal
        (width, n_rates * conv_width), so that a layer reading TF can fold it
        into its own weights instead of materialising TF.

        RETURNS (Tuple[torch.Tensor, torch.Tensor]): weight and bias (width,).
        """
        return torch.block_diag(*self.weight.transpose(1, 2)), self.bias.flatten()


class TwoStreamEnhancement(nn.Module):
    """One round of the paper's relation enhancement, eq. (11)-(15), on
    separate subject and object streams.

    TF is max-pooled along each row (subject i) and each column (object j);
    each stream is projected (W_s, W_o) and run through its own FFN (S-FFN,
    O-FFN) to H_s, H_o; self-attention within each stream, then
    cross-attention from it to the round's first subject/object vectors
    (h^s, h^o of eq. 4); a linear layer and GELU (eq. 14); residual and
    LayerNorm (eq. 15). The new H_s, H_o replace h^s, h^o in the conditional
    layer norm of the next pass through the convolution module.

    Departures: the self- and cross-attention weights are shared by the two
    streams (the paper names one SelfAttention and one CrossAttention for
    both); the FFNs are Linear-GELU-Linear.

    tag_width (int): Channels of TF.
    width (int): Width of the subject/object vectors (the grid width).
    heads (int): Attention heads (must divide width).
    dropout (float): Dropout inside the attention layers.
    """

    def __init__(self, tag_width: int, width: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.subject_ffn = nn.Sequential(
            nn.Linear(tag_width, width), nn.Linear(width, width), nn.GELU(), nn.Linear(width, width)
        )
        self.object_ffn = nn.Sequential(
            nn.Linear(tag_width, width), nn.Linear(width, width), nn.GELU(), nn.Linear(width, width)
        )
        self.self_attention = nn.MultiheadAttention(width, heads, dropout=dropout, batch_first=True)
        self.cross_attention = nn.MultiheadAttention(width, heads, dropout=dropout, batch_first=True)
        self.subject_out = nn.Linear(width, width)
        self.object_out = nn.Linear(width, width)
        self.subject_norm = nn.LayerNorm(width)
        self.object_norm = nn.LayerNorm(width)

    def forward(
        self,
        tags: torch.Tensor,
        subjects: torch.Tensor,
        objects: torch.Tensor,
        cell_mask: torch.Tensor,
        token_mask: torch.Tensor,
    ):
        """tags (torch.Tensor): TF, (batch, n, n, tag_width).
        subjects, objects (torch.Tensor): h^s, h^o (batch, n, width), the
            cross-attention's keys and values.
        cell_mask (torch.Tensor): Bool (batch, n, n); token_mask: bool (batch, n).
        RETURNS (Tuple[torch.Tensor, torch.Tensor]): H_s, H_o of the next
            round, (batch, n, width) each, zero at padding.
        """
        tags = tags.masked_fill(~cell_mask[..., None], torch.finfo(tags.dtype).min)
        padding = ~token_mask
        rows = tags.amax(dim=2).masked_fill(padding[..., None], 0.0)
        columns = tags.amax(dim=1).masked_fill(padding[..., None], 0.0)
        streams = []
        for pooled, ffn, memory, out, norm in (
            (rows, self.subject_ffn, subjects, self.subject_out, self.subject_norm),
            (columns, self.object_ffn, objects, self.object_out, self.object_norm),
        ):
            H = ffn(pooled)
            attended, _ = self.self_attention(H, H, H, key_padding_mask=padding, need_weights=False)
            crossed, _ = self.cross_attention(attended, memory, memory, key_padding_mask=padding, need_weights=False)
            H = norm(H + F.gelu(out(crossed)))
            streams.append(H.masked_fill(padding[..., None], 0.0))
        return streams[0], streams[1]
