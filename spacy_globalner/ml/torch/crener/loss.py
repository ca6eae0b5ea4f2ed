"""Multi-label cross-entropy with a threshold class, per grid cell (ATLOP-style).

For a cell with threshold logit s0, positive tags P and negative tags N:

    log(e^-s0 + sum_{p in P} e^-s_p) + log(e^s0 + sum_{n in N} e^s_n)

pushes every positive above s0 and every negative below it; a cell with no
positive only learns to keep its negatives under s0. With a fixed s0 = 0 it
is GlobalPointer's loss per cell.

The cells are averaged with a weight: a cell that carries a gold tag counts
`positive_weight` times as much as one that carries none. In an n x n grid
under 5% of the cells carry a tag, and with a plain mean the typed closing
cells are learned last and predicted too rarely; too high a weight
over-predicts (docs/crener.md has the weights measured).

Computed in fp32 (fp64 for fp64 input) whatever the input dtype.
"""
from typing import Optional

import torch


def threshold_multilabel_loss(
    logits: torch.Tensor,
    gold: torch.Tensor,
    positive_weight: float = 1.0,
    counted: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Weighted mean over cells of the thresholded multi-label cross-entropy.

    logits (torch.Tensor): (n_cells, 1 + n_tags); column 0 is the threshold class.
    gold (torch.Tensor): Bool (n_cells, n_tags), True for each tag a cell carries.
    positive_weight (float): Weight of a cell that carries a gold tag,
        relative to one that carries none.
    counted (Optional[torch.Tensor]): Bool (n_cells,), False for cells left
        out of the loss (their gold is unknown); None counts every cell.
    RETURNS (torch.Tensor): Scalar loss, fp32 for fp16/bf16/fp32 input.
    """
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    threshold, scores = logits[:, :1], logits[:, 1:]
    floor = torch.finfo(logits.dtype).min
    positives = torch.cat((-threshold, (-scores).masked_fill(~gold, floor)), dim=1)
    negatives = torch.cat((threshold, scores.masked_fill(gold, floor)), dim=1)
    per_cell = torch.logsumexp(positives, dim=1) + torch.logsumexp(negatives, dim=1)
    weights = 1.0 + (positive_weight - 1.0) * gold.any(dim=1).to(per_cell.dtype)
    if counted is not None:
        weights = weights * counted.to(per_cell.dtype)
    return (per_cell * weights).sum() / weights.sum()
