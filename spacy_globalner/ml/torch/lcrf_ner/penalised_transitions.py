"""CRF transition scores with learned penalties for forbidden transitions
(Zöllner et al., 2021), as a plain torch module.
"""
import torch
from torch import nn


class PenalisedTransitions(nn.Module):
    """T = W * (A + w_factor * F) - w_absolute * F.

    W is the trainable transition matrix, F[i, j] = 1 where the tag scheme
    forbids moving from tag i to tag j (rows are "from", columns "to"), A = 1 - F,
    and w_factor, w_absolute are two trainable scalars. Allowed transitions
    score W; forbidden ones are scaled by w_factor and lowered by w_absolute,
    so the model learns how hard to penalise them. With w_factor = 1 and
    w_absolute = 0, T = W: a plain CRF.

    forbidden (torch.Tensor): Bool [from, to] matrix over tags, START and END.
    learn_penalties (bool): Train w_factor and w_absolute; when False they stay
        at 1 and 0 (the plain-CRF ablation).
    init_range (float): W starts uniform in [-init_range, init_range].
    """

    def __init__(self, forbidden: torch.Tensor, *, learn_penalties: bool = True, init_range: float = 0.1):
        super().__init__()
        n_states = forbidden.shape[0]
        self.weight = nn.Parameter(torch.empty(n_states, n_states).uniform_(-init_range, init_range))
        # Both runs of the ablation start from the plain CRF, so they differ
        # only in whether the penalties may move. Shape (1,), not (): Thinc's
        # optimizers expect sized parameters.
        self.w_factor = nn.Parameter(torch.ones(1), requires_grad=learn_penalties)
        self.w_absolute = nn.Parameter(torch.zeros(1), requires_grad=learn_penalties)
        self.register_buffer("forbidden", forbidden.to(torch.float32), persistent=False)

    def forward(self) -> torch.Tensor:
        """RETURNS (torch.Tensor): Transition scores [from, to], (n_states, n_states)."""
        forbidden = self.forbidden.to(self.weight.dtype)
        allowed = 1.0 - forbidden
        return self.weight * (allowed + self.w_factor * forbidden) - self.w_absolute * forbidden
