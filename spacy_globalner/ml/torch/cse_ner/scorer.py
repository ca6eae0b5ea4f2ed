"""The CSE tagging head (Zöllner et al., 2021) as plain torch modules: token
vectors -> a start logit, an end logit and class logits per token; and its
loss, start BCE + end BCE + class softmax cross-entropy.
"""
import warnings

import torch
from torch import nn
from torch.nn import functional as F


class CSENERScorer(nn.Module):
    """Two scalar dense outputs (start, end) and a dense layer over the
    entity labels plus "other" (the last class), computed by one projection.

    n_labels (int): Number of entity labels.
    """

    def __init__(self, n_labels: int):
        super().__init__()
        with warnings.catch_warnings():
            # The input width is only known from the first batch (or the weights
            # being loaded), so the projection is lazy.
            warnings.filterwarnings("ignore", message="Lazy modules")
            self.output = nn.LazyLinear(2 + n_labels + 1)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """X (torch.Tensor): Padded token vectors (n_docs, max_length, n_in).
        RETURNS (torch.Tensor): Logits (n_docs, max_length, 2 + n_labels + 1):
            start, end, then the classes with "other" last.
        """
        return self.output(X)


def cse_loss(
    logits: torch.Tensor,
    starts: torch.Tensor,
    ends: torch.Tensor,
    classes: torch.Tensor,
    mask: torch.Tensor,
) -> torch.Tensor:
    """J_start + J_end + J_class, each summed over a doc's tokens and averaged
    over the docs, computed in float32 (or float64 for float64 logits).

    logits (torch.Tensor): (n_docs, max_length, 2 + n_classes), as CSENERScorer.
    starts, ends (torch.Tensor): Float 0/1 targets (n_docs, max_length).
    classes (torch.Tensor): Int64 class targets (n_docs, max_length), "other"
        = n_classes - 1.
    mask (torch.Tensor): Bool (n_docs, max_length), True on real tokens.
    RETURNS (torch.Tensor): The scalar loss.
    """
    if logits.element_size() < 4:  # fp16 / bf16: the loss is computed in fp32
        logits = logits.float()
    weight = mask.to(logits.dtype)
    n_docs = max(int(logits.shape[0]), 1)
    j_start = F.binary_cross_entropy_with_logits(
        logits[..., 0], starts.to(logits.dtype), weight=weight, reduction="sum"
    )
    j_end = F.binary_cross_entropy_with_logits(logits[..., 1], ends.to(logits.dtype), weight=weight, reduction="sum")
    class_logits = logits[..., 2:]
    j_class = F.cross_entropy(
        class_logits.reshape(-1, class_logits.shape[-1]), classes.reshape(-1), reduction="none"
    )
    j_class = (j_class * weight.reshape(-1)).sum()
    return (j_start + j_end + j_class) / n_docs
