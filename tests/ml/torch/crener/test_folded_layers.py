"""The scorer's folded linear layers compute what the unfolded ones did:
the co-predictor's MLP over [grid; TF(grid)] and MLP_1 over the concatenated
grid embeddings, values and gradients, in fp64."""
import pytest
import torch
from torch import nn

from spacy_globalner.ml.torch.crener.co_predictor import CoPredictor, fold_tag_projection
from spacy_globalner.ml.torch.crener.concatenated_linear import linear_of_concatenation
from spacy_globalner.ml.torch.crener.relation_enhancement import TagProjection


def _grads(tensors, output, seed=0):
    weights = torch.randn(output.shape, dtype=output.dtype, generator=torch.Generator().manual_seed(seed))
    return torch.autograd.grad((output * weights).sum(), tensors)


@pytest.mark.parametrize("grid_width", [12, 0])
def test_folded_tag_projection_is_the_mlp_over_the_tag_features(grid_width):
    torch.manual_seed(0)
    tags = TagProjection(conv_width=4, n_rates=3, n_out=5).double()
    predictor = CoPredictor(6, grid_width + tags.width, 4, 7, n_out=5, dropout=0.0).double()
    tokens = torch.randn(2, 5, 6, dtype=torch.float64)
    grid = torch.randn(2, 5, 5, 12, dtype=torch.float64, requires_grad=True)
    features = torch.cat((grid, tags(grid)), dim=-1) if grid_width else tags(grid)
    unfolded = predictor(tokens, features)
    folded = predictor(tokens, grid, fold_tag_projection(predictor.grid_mlp[0], tags, grid_width))
    assert torch.allclose(folded, unfolded, atol=1e-12)
    parameters = [grid, *tags.parameters(), *predictor.grid_mlp[0].parameters()]
    for a, b in zip(_grads(parameters, folded), _grads(parameters, unfolded)):
        assert torch.allclose(a, b, atol=1e-10)


def test_tag_projection_as_linear_is_the_projection():
    torch.manual_seed(0)
    tags = TagProjection(conv_width=3, n_rates=2, n_out=4)
    grid = torch.randn(2, 5, 5, 6)
    assert torch.allclose(nn.functional.linear(grid, *tags.as_linear()), tags(grid), atol=1e-6)


def test_linear_of_concatenation_broadcasts_a_part_shared_by_the_batch():
    torch.manual_seed(0)
    linear = nn.Linear(6 + 3 + 2, 4).double()
    grid = torch.randn(2, 5, 5, 6, dtype=torch.float64, requires_grad=True)
    shared = torch.randn(1, 5, 5, 3, dtype=torch.float64, requires_grad=True)
    attention = torch.randn(2, 5, 5, 2, dtype=torch.float64, requires_grad=True)
    parts = [grid, shared, attention]
    split = linear_of_concatenation(linear, parts)
    whole = linear(torch.cat((grid, shared.expand(2, -1, -1, -1), attention), dim=-1))
    assert torch.allclose(split, whole, atol=1e-12)
    tensors = parts + list(linear.parameters())
    for a, b in zip(_grads(tensors, split), _grads(tensors, whole)):
        assert torch.allclose(a, b, atol=1e-10)


def test_linear_of_concatenation_checks_the_widths():
    with pytest.raises(ValueError, match="do not add up"):
        linear_of_concatenation(nn.Linear(5, 2), [torch.randn(3, 4)])
