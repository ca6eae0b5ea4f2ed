"""A linear layer over a concatenation of features, without the concatenation."""
from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F


def linear_of_concatenation(linear: nn.Linear, parts: Sequence[torch.Tensor]) -> torch.Tensor:
    """linear(torch.cat(parts, dim=-1)), computed as the sum of one product
    per part with its slice of the weight, broadcast against each other.

    The same function; a part shared by the whole batch (the grid position
    embeddings, (1, n, n, width)) is projected once instead of once per
    sequence, and the concatenated grid is never materialised.

    linear (nn.Linear): in_features is the parts' widths summed.
    parts (Sequence[torch.Tensor]): Features to concatenate on the last axis,
        broadcastable against each other on the others.
    RETURNS (torch.Tensor): The layer's output, broadcast over the parts' shapes.
    """
    widths = [part.shape[-1] for part in parts]
    if sum(widths) != linear.in_features:
        raise ValueError(f"parts of widths {widths} do not add up to in_features={linear.in_features}")
    weights = linear.weight.split(widths, dim=1)
    output = F.linear(parts[0], weights[0], linear.bias)
    for part, weight in zip(parts[1:], weights[1:]):
        output = output + F.linear(part, weight)
    return output
