"""Multi-label cross-entropy with a threshold class, per grid cell (ATLOP-style).

For a cell with threshold logit s0, positive tags P and negative tags N:

    log(e^-s0 + sum_{p in P} e^-s_p) + log(e^s0 + sum_{n in N} e^s_n)

pushes every positive above s0 and every negative below it; a cell with no
positive only learns to keep its negatives under s0. With a fixed s0 = 0 it
is GlobalPointer's loss per cell. Computed in fp32 (or fp64 for fp64 input)
whatever the input dtype.
"""
import torch


def threshold_multilabel_loss(logits: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Mean over cells of the thresholded multi-label cross-entropy.

    logits (torch.Tensor): (n_cells, 1 + n_tags); column 0 is the threshold class.
    gold (torch.Tensor): Bool (n_cells, n_tags), True for each tag a cell carries.
    RETURNS (torch.Tensor): Scalar loss, fp32 for fp16/bf16/fp32 input.
    """
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    threshold, scores = logits[:, :1], logits[:, 1:]
    floor = torch.finfo(logits.dtype).min
    positives = torch.cat((-threshold, (-scores).masked_fill(~gold, floor)), dim=1)
    negatives = torch.cat((threshold, scores.masked_fill(gold, floor)), dim=1)
    return (torch.logsumexp(positives, dim=1) + torch.logsumexp(negatives, dim=1)).mean()
