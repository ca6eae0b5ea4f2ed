"""GlobalPointer span scoring as a plain torch module (no spaCy, no Thinc).

The batch arrives packed: the token vectors of all docs one after another, with
each token's position inside its doc.
Only the band of spans up to `width` tokens long is scored, so memory grows as
O(tokens * width * labels) rather than O(tokens^2 * labels). The band's last
rows of each doc hold cells whose span would cross into the next doc: they are
not masked here (that would be one more pass over the whole band) but left
out by the decoder and the loss, which know the doc lengths.
"""
import warnings
from typing import Tuple

import torch
from torch import nn
from torch.nn import functional

from .band import band_products
from .rope import rope_rotations, rotate


class GlobalPointerScorer(nn.Module):
    """s(i, j, label) = q_i . R(j - i) k_j / sqrt(head_width), for j - i < width.

    n_labels (int): Number of entity labels.
    head_width (int): Width of queries and keys (even, for RoPE).
    rope (bool): Apply rotary position embedding (switch off only for ablation).
    efficient (bool): Efficient GlobalPointer: one q/k projection shared by all
        labels, plus per-label start and end biases projected from it.
    """

    def __init__(self, n_labels: int, head_width: int = 64, *, rope: bool = True, efficient: bool = False):
        super().__init__()
        self.n_labels = n_labels
        self.head_width = head_width
        self.rope = rope
        self.efficient = efficient
        n_projections = 1 if efficient else n_labels
        with warnings.catch_warnings():
            # The input width is only known from the first batch (or the weights
            # being loaded), so the first projection is lazy.
            warnings.filterwarnings("ignore", message="Lazy modules")
            self.query_key = nn.LazyLinear(2 * head_width * n_projections)
        self.label_bias = nn.Linear(2 * head_width, 2 * n_labels) if efficient else None

    def forward(
        self,
        X: torch.Tensor,
        positions: torch.Tensor,
        width: int,
        offset: float = 0.0,
    ) -> torch.Tensor:
        """Score the band of spans starting at each packed token.

        X (torch.Tensor): Token vectors (n_tokens, n_in).
        positions (torch.Tensor): Position of each token inside its doc (n_tokens,).
        width (int): Longest span scored, in tokens.
        offset (float): A constant added to every score: the prior log-odds
            the pipe sets from the training data, so that training starts
            from scores where spans are as rare as in the data.
        RETURNS (torch.Tensor): Logits (n_tokens, width, n_labels). A cell
            whose span would cross the end of its doc pairs the token with one
            of the next doc (or with padding) and is not a score: see
            `decoding.global_pointer.band_cell_coordinates`.
        """
        n_tokens = X.shape[0]
        queries, keys = self._project(X, width)
        scale = self.head_width**-0.5
        if self.rope:
            # The keys' padding rows are rotated as position 0; their cells are no spans.
            padded = functional.pad(positions, (0, width - 1))
            rotations = rope_rotations(padded, self.head_width, queries.dtype)[:, None, :]
            # The scale rides on the queries' rotation, so it costs no pass of its own.
            scores = band_products(rotate(queries, rotations[:n_tokens] * scale), rotate(keys, rotations), width)
        else:
            scores = band_products(queries * scale, keys, width)
        if self.label_bias is not None:
            both = torch.cat((queries.flatten(1), keys[:n_tokens].flatten(1)), 1)
            bias = self.label_bias(both).view(n_tokens, self.n_labels, 2) / 2
            start_bias, end_bias = bias[..., 0], bias[..., 1]
            padded_end = torch.cat((end_bias, end_bias.new_zeros((width - 1, self.n_labels))))
            end_windows = padded_end.unfold(0, width, 1).transpose(1, 2)
            scores = scores + start_bias[:, None, :] + end_windows
        if offset:
            # In place: the band's scores are a tensor of their own that nothing else reads.
            scores.add_(offset)
        return scores

    def _project(self, X: torch.Tensor, width: int) -> Tuple[torch.Tensor, torch.Tensor]:
        """Queries (n_tokens, n_projections, head_width) and keys (n_tokens +
        width - 1, ...), each contiguous, from the one projection's rows.

        Two products in place of one whose output interleaves queries and
        keys: the band reads contiguous rows faster. The width - 1 rows
        of keys past the last token, which the band's windows read but whose
        cells are no spans, come from padding X with zeros rather than from a
        copy of the keys.
        """
        if nn.parameter.is_lazy(self.query_key.weight):
            self.query_key(X[:1])  # materialise the lazy projection
        n_in = X.shape[1]
        weight = self.query_key.weight.view(-1, 2, self.head_width, n_in)
        bias = self.query_key.bias.view(-1, 2, self.head_width)
        queries = functional.linear(X, weight[:, 0].reshape(-1, n_in), bias[:, 0].reshape(-1))
        padded = functional.pad(X, (0, 0, 0, width - 1))
        keys = functional.linear(padded, weight[:, 1].reshape(-1, n_in), bias[:, 1].reshape(-1))
        return queries.view(X.shape[0], -1, self.head_width), keys.view(padded.shape[0], -1, self.head_width)
