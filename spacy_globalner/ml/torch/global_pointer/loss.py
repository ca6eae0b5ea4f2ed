"""The multi-label "softmax + cross-entropy" loss of GlobalPointer (Su, 2020).

For each group (one doc and one label) of candidate cells:

    log(1 + sum_{negatives} e^s) + log(1 + sum_{positives} e^-s)

which pushes every positive above 0 and every negative below it without a
per-cell class balance. Computed in fp32 (or fp64) whatever the input dtype.
"""
import torch


def _grouped_log1p_sum_exp(
    values: torch.Tensor, mask: torch.Tensor, group: torch.Tensor, n_groups: int
) -> torch.Tensor:
    """log(1 + sum of e^values over the masked cells of each group), stably."""
    floor = torch.finfo(values.dtype).min
    values = values.masked_fill(~mask, floor)
    shift = torch.zeros((n_groups,), dtype=values.dtype, device=values.device)
    shift = shift.scatter_reduce(0, group, values.detach(), reduce="amax", include_self=True)
    terms = torch.exp(values - shift[group]) * mask
    sums = torch.exp(-shift).index_add(0, group, terms)
    return shift + torch.log(sums)


def global_pointer_loss(
    logits: torch.Tensor,
    gold: torch.Tensor,
    valid: torch.Tensor,
    group: torch.Tensor,
    n_groups: int,
) -> torch.Tensor:
    """Mean over groups of the multi-label cross-entropy.

    logits (torch.Tensor): Scores of the candidate cells, any shape.
    gold (torch.Tensor): Bool, True where a cell is an entity; same shape.
    valid (torch.Tensor): Bool, True for cells that take part; same shape.
    group (torch.Tensor): Group index (0 <= g < n_groups) of each cell; same shape.
    n_groups (int): Number of groups, e.g. docs * labels.
    RETURNS (torch.Tensor): Scalar fp32 loss.
    """
    # fp16/bf16 logits are promoted to fp32; fp64 (gradient checks) stays fp64.
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32)).reshape(-1)
    gold = gold.reshape(-1)
    valid = valid.reshape(-1)
    group = group.reshape(-1)
    negatives = valid & ~gold
    positives = valid & gold
    loss = _grouped_log1p_sum_exp(logits, negatives, group, n_groups)
    loss = loss + _grouped_log1p_sum_exp(-logits, positives, group, n_groups)
    return loss.mean()
