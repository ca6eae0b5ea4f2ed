"""GridDropout: nn.Dropout's Bernoulli(1 - p) mask and 1 / (1 - p) scale,
drawn another way; identity outside training; spaCy's rate reaches it."""
import pytest
import torch
from torch import nn

from spacy_globalner.ml.models.crener import crener_settings
from spacy_globalner.ml.torch.crener.grid_dropout import GridDropout
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer


@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_keeps_one_minus_p_of_the_cells_scaled_by_their_inverse(rate):
    torch.manual_seed(0)
    X = torch.rand(40, 30, 30, 8) + 0.5  # no zeros, so a dropped cell is a zero
    dropped = GridDropout(rate).train()(X)
    kept = dropped != 0
    assert kept.float().mean().item() == pytest.approx(1 - rate, abs=0.005)
    torch.testing.assert_close(dropped[kept], X[kept] / (1 - rate))


def test_gradient_is_the_scaled_mask():
    torch.manual_seed(0)
    X = torch.randn(3, 5, 5, 4, dtype=torch.float64, requires_grad=True)
    dropped = GridDropout(0.25).train()(X)
    dropped.sum().backward()
    expected = (dropped.detach() != 0).to(X.dtype) / 0.75
    torch.testing.assert_close(X.grad, expected)
    assert X.grad.dtype == torch.float64


def test_identity_in_eval_and_at_rate_zero():
    X = torch.randn(2, 4, 4, 3)
    assert GridDropout(0.5).eval()(X) is X
    assert torch.equal(GridDropout(0.0).train()(X), X)


def test_the_scorer_uses_it_on_the_grid_and_set_dropout_rate_reaches_it():
    scorer = CRENERScorer(2, crener_settings(dropout=0.1))
    grid_dropouts = [module for module in scorer.modules() if isinstance(module, GridDropout)]
    assert len(grid_dropouts) == 2  # MLP_1's (eq. 7) and the co-predictor's grid MLP
    scorer.set_dropout_rate(0.3)
    assert all(module.p == 0.3 for module in scorer.modules() if isinstance(module, nn.Dropout))
