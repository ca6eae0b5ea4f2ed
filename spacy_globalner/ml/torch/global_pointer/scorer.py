"""GlobalPointer span scoring as a plain torch module (no spaCy, no Thinc).

The batch arrives packed: the token vectors of all docs one after another, with
each token's position inside its doc and the number of tokens left in its doc.
Only the band of spans up to `width` tokens long is scored, so memory grows as
O(tokens * width * labels) rather than O(tokens^2 * labels).
"""
import warnings

import torch
from torch import nn

from .band import band_products
from .rope import apply_rope


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
        # 1 / sqrt(head_width) for the queries, 1 for the keys, multiplied into the
        # RoPE table (exact for head_width 4^k). A buffer, so it moves with the
        # module; not saved, so the state dict is what it was; fp64, so an fp64
        # model keeps every digit (it is cast to the dtype the rotation runs in).
        scale = torch.tensor([[head_width**-0.5], [1.0]], dtype=torch.float64)
        self.register_buffer("slot_scale", scale, persistent=False)

    def forward(
        self,
        X: torch.Tensor,
        positions: torch.Tensor,
        remaining: torch.Tensor,
        width: int,
        offset: float = 0.0,
    ) -> torch.Tensor:
        """Score the band of spans starting at each packed token.

        X (torch.Tensor): Token vectors (n_tokens, n_in).
        positions (torch.Tensor): Position of each token inside its doc (n_tokens,).
        remaining (torch.Tensor): Tokens from each token to its doc's end (n_tokens,).
        width (int): Longest span scored, in tokens.
        offset (float): A constant added to every score: the prior log-odds
            the pipe sets from the training data, so that training starts
            from scores where spans are as rare as in the data.
        RETURNS (torch.Tensor): Logits (n_tokens, width, n_labels); cells whose
            span would cross the end of its doc hold the dtype's minimum.
        """
        n_tokens = X.shape[0]
        projected = self.query_key(X)
        heads = projected.view(n_tokens, -1, 2, self.head_width)
        if self.rope:
            heads = apply_rope(heads, positions, self.slot_scale)  # queries and keys in one pass, queries scaled
        else:
            heads = heads * self.slot_scale.to(heads.dtype)
        queries = heads[:, :, 0]
        keys = heads[:, :, 1]
        scores = band_products(queries, keys, width)
        if self.label_bias is not None:
            bias = self.label_bias(projected).view(n_tokens, self.n_labels, 2) / 2
            start_bias, end_bias = bias[..., 0], bias[..., 1]
            padded_end = torch.cat((end_bias, end_bias.new_zeros((width - 1, self.n_labels))))
            end_windows = padded_end.unfold(0, width, 1).transpose(1, 2)
            scores = scores + start_bias[:, None, :] + end_windows
        if offset:
            scores = scores + offset
        outside = torch.arange(width, device=X.device)[None, :] >= remaining[:, None]
        return scores.masked_fill(outside[:, :, None], torch.finfo(scores.dtype).min)
