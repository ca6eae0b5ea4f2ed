"""The linear-chain CRF head as a plain torch module: token vectors -> emission
scores over the tags, plus the (penalised) transition scores.
"""
import warnings
from typing import Tuple

import torch
from torch import nn

from .penalised_transitions import PenalisedTransitions


class LCRFNERScorer(nn.Module):
    """Linear emissions over the tag set and a transition matrix.

    forbidden (torch.Tensor): Bool [from, to] matrix over the tags, START and
        END (n_tags + 2 square); its size fixes the number of tags.
    transitions (str): "penalised" (learned penalty scalars, see
        PenalisedTransitions), "crf" (penalties fixed at a plain CRF) or "none"
        (no transition parameters: the transitions are a constant zero matrix,
        for the softmax baseline).
    """

    def __init__(self, forbidden: torch.Tensor, *, transitions: str):
        super().__init__()
        n_tags = forbidden.shape[0] - 2
        with warnings.catch_warnings():
            # The input width is only known from the first batch (or the weights
            # being loaded), so the projection is lazy.
            warnings.filterwarnings("ignore", message="Lazy modules")
            self.emissions = nn.LazyLinear(n_tags)
        self.transitions = (
            ZeroTransitions(forbidden.shape[0])
            if transitions == "none"
            else PenalisedTransitions(forbidden, learn_penalties=transitions == "penalised")
        )

    def forward(self, X: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """Score every tag of every token.

        X (torch.Tensor): Padded token vectors (n_docs, max_length, n_in).
        RETURNS (Tuple[torch.Tensor, torch.Tensor]): Emissions (n_docs,
            max_length, n_tags) and transitions (n_tags + 2, n_tags + 2),
            indexed [from, to] with START at n_tags and END at n_tags + 1.
        """
        return self.emissions(X), self.transitions()


class ZeroTransitions(nn.Module):
    """No transition scores: a constant zero [from, to] matrix, so that the
    CRF's likelihood is the tokens' softmax likelihood.

    n_states (int): Number of tags plus START and END.
    """

    def __init__(self, n_states: int):
        super().__init__()
        self.register_buffer("zeros", torch.zeros(n_states, n_states), persistent=False)

    def forward(self) -> torch.Tensor:
        """RETURNS (torch.Tensor): Zeros, (n_states, n_states)."""
        return self.zeros
