"""The pooled relation enhancement kept as row and column biases (and, in
training, read with the co-predictor's first layer in one product) computes
what the materialised enhanced grid gives: the scorer's output, in training
and in prediction, and every gradient against the written-out formula (grid +
rows + columns, then the co-predictor), in fp64, on random inputs and weights."""
import pytest
import torch

from spacy_globalner.ml.torch.crener.co_predictor import fold_tag_projection
from spacy_globalner.ml.torch.crener.relation_enhancement import RelationEnhancement
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer
from spacy_globalner.ml.torch.crener.settings import CRENERSettings
from tests.helpers.crener import TINY_SCORER


def materialised_forward(scorer: CRENERScorer, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """CRENERScorer.forward with the enhanced grid materialised: each pooled
    round returns the enhanced grid, which the next round and the co-predictor
    read."""
    n = X.shape[1]
    token_mask = torch.arange(n)[None, :] < lengths[:, None]
    cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
    tokens = scorer.context(scorer.input(X), lengths)
    embeddings = [scorer.position(n, X.device)[None]]
    grid = scorer._convolve(scorer.subject(tokens), scorer.object(tokens), embeddings, cell_mask)
    for enhancement in scorer.enhancements:
        grid = enhancement(grid, tokens, cell_mask, token_mask)
    first_layer = None
    if scorer.settings.predictor_input != "grid":
        grid_width = scorer.convolutions.width if scorer.settings.predictor_input == "grid+tags" else 0
        first_layer = fold_tag_projection(scorer.predictor.grid_mlp[0], scorer.tags, grid_width)
    return scorer.predictor(tokens, grid, first_layer)


@pytest.mark.parametrize("rounds", [1, 2])
@pytest.mark.parametrize("predictor_input", ["grid", "grid+tags", "tags"])
def test_biases_give_the_materialised_grid_values_and_gradients(rounds, predictor_input):
    torch.manual_seed(rounds)
    settings = CRENERSettings(**{**TINY_SCORER, "enhancement_rounds": rounds, "predictor_input": predictor_input})
    scorer = CRENERScorer(5, settings).double()
    X = torch.randn(3, 7, 5, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([7, 4, 1])
    scorer(X, lengths)  # materialises the lazy input projection
    with torch.no_grad():
        # Non-zero CLN generators and biases everywhere, so no part is trivially 0.
        for parameter in scorer.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    biased = scorer(X, lengths)
    reference = materialised_forward(scorer, X, lengths)
    inside = (torch.arange(7)[None, :] < lengths[:, None]).double()
    inside = inside[:, :, None, None] * inside[:, None, :, None]
    assert torch.allclose(biased * inside, reference * inside, atol=1e-12)
    with torch.no_grad():  # prediction: each linear layer reads the grid alone
        predicted = scorer(X, lengths)
    assert torch.allclose(predicted * inside, reference * inside, atol=1e-12)
    weights = torch.randn(biased.shape, dtype=torch.float64) * inside
    tensors = [X, *scorer.parameters()]
    biased_grads = torch.autograd.grad((biased * weights).sum(), tensors, allow_unused=True)
    reference_grads = torch.autograd.grad((reference * weights).sum(), tensors, allow_unused=True)
    checked = 0
    for (name, _), a, b in zip([("X", X), *scorer.named_parameters()], biased_grads, reference_grads):
        assert (a is None) == (b is None), name
        if a is not None:
            assert torch.allclose(a, b, atol=1e-10), name
            checked += a.abs().sum() > 0
    assert checked > 30


def test_forward_is_the_grid_plus_its_biases():
    torch.manual_seed(0)
    enhancement = RelationEnhancement(grid_width=6, token_width=8, tag_width=5, heads=2).double().eval()
    token_mask = torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None]
    cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
    grid, tokens = torch.randn(2, 5, 5, 6, dtype=torch.float64), torch.randn(2, 5, 8, dtype=torch.float64)
    rows, columns = enhancement.biases(grid, tokens, cell_mask, token_mask)
    once = enhancement(grid, tokens, cell_mask, token_mask)
    assert torch.allclose(once, grid + rows[:, :, None] + columns[:, None], atol=1e-12)
    # A second round on top of the first reads the enhanced grid.
    twice = enhancement(once, tokens, cell_mask, token_mask)
    rows2, columns2 = enhancement.biases(grid, tokens, cell_mask, token_mask, rows, columns)
    assert torch.allclose(twice, grid + rows2[:, :, None] + columns2[:, None], atol=1e-12)
