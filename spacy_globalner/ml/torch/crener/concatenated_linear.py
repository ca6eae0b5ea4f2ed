"""A linear layer over a concatenation of features, without the concatenation."""
from typing import Optional, Sequence

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


def linear_of_blocks(
    blocks: Sequence[torch.Tensor], weight: torch.Tensor, bias: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """F.linear(torch.cat(blocks, dim=-1), weight, bias) for blocks of one
    shape but the last axis, as one matrix product per block accumulated into
    one output.

    The same function. On a CPU, concatenating channels-last grids along the
    channels copies a few dozen values per cell at a time and costs more than
    the products themselves; without autograd the products accumulate in place.

    blocks (Sequence[torch.Tensor]): (..., width_k) each, contiguous.
    weight (torch.Tensor): (out, sum of the widths).
    bias (Optional[torch.Tensor]): (out,).
    RETURNS (torch.Tensor): (..., out).
    """
    widths = [block.shape[-1] for block in blocks]
    if sum(widths) != weight.shape[1]:
        raise ValueError(f"blocks of widths {widths} do not add up to the weight's {weight.shape[1]} inputs")
    weights = weight.split(widths, dim=1)
    shape = blocks[0].shape[:-1]
    output = F.linear(blocks[0].reshape(-1, widths[0]), weights[0], bias)
    for block, part in zip(blocks[1:], weights[1:]):
        flat = block.reshape(-1, part.shape[1])
        if torch.is_grad_enabled() or torch.is_autocast_enabled(flat.device.type):
            # autocast casts an out-of-place product; in place, a float32
            # product would be added into a float16 output
            output = torch.addmm(output, flat, part.t())
        else:
            output.addmm_(flat, part.t())
    return output.view(*shape, weight.shape[0])
