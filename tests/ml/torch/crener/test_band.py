"""The scorer's band: each cell within the band gets the score the whole grid
gives it, for every form of the model, on random inputs and weights, padded
batches, bands narrower and wider than the grid; and the pieces prediction
reads the grid with."""
import pytest
import torch

from spacy_globalner.ml.torch.crener.band import band_columns, gather_band, gather_columns
from spacy_globalner.ml.torch.crener.concatenated_linear import linear_of_blocks
from spacy_globalner.ml.torch.crener.dilated_convolution import DilatedConvolutions
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer
from spacy_globalner.ml.torch.crener.settings import PAPER_SWITCHES, CRENERSettings
from tests.helpers.crener import TINY_SCORER

FORMS = {
    "W2NER": {},
    "W2NER, grid+tags": {"predictor_input": "grid+tags"},
    "tags, fixed threshold": {"predictor_input": "tags", "learned_threshold": False},
    "no enhancement": {"enhancement_rounds": 0},
    "two pooled rounds": {"enhancement_rounds": 2},
    "paper": {**PAPER_SWITCHES, "transformer_depth": 1, "attention_embedding_width": 2, "predictor_input": "grid+tags"},
}


def in_band(lengths: torch.Tensor, n: int, band: int) -> torch.Tensor:
    """Bool (batch, n, 2 * band + 1): band cells inside their sequence."""
    columns = torch.arange(n)[:, None] + torch.arange(-band, band + 1)[None, :]
    inside_column = (columns[None] >= 0) & (columns[None] < lengths[:, None, None])
    return inside_column & (torch.arange(n)[None, :, None] < lengths[:, None, None])


def random_scorer(form: dict, seed: int) -> CRENERScorer:
    torch.manual_seed(seed)
    scorer = CRENERScorer(6, CRENERSettings(**{**TINY_SCORER, **form})).double()
    scorer(torch.randn(1, 3, 5, dtype=torch.float64), torch.tensor([3]))  # the lazy input projection
    with torch.no_grad():
        # CLN generators and biases start at zero: move every weight.
        for parameter in scorer.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    return scorer.eval()


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("band", [0, 1, 2, 3, 20])
def test_band_cells_score_as_in_the_whole_grid(form, band):
    scorer = random_scorer(FORMS[form], seed=band)
    X = torch.randn(3, 11, 5, dtype=torch.float64)
    lengths = torch.tensor([11, 6, 1])
    # The whole grid as training computes it (with autograd: one concatenated
    # grid), the band as prediction does (without: the convolutions' blocks).
    whole = scorer(X, lengths).detach()
    with torch.no_grad():
        banded = scorer(X, lengths, band=band)
    if 2 * (2 * band + 1) > 11:  # a band over half the grid's width: the whole grid
        assert torch.allclose(banded, whole, atol=1e-10)
        return
    assert banded.shape == (3, 11, 2 * band + 1, whole.shape[-1])
    mask = in_band(lengths, 11, band)
    expected = gather_band(whole, band)
    assert mask.sum() > 0
    assert torch.allclose(banded[mask], expected[mask], atol=1e-10)
    # The check tells a cell from its mirror: the transposed grid fails it.
    if band:
        assert not torch.allclose(banded[mask], gather_band(whole.transpose(1, 2), band)[mask])


def test_band_is_differentiable_like_the_grid():
    scorer = random_scorer({}, seed=0).train()
    scorer.set_dropout_rate(0.0)
    X = torch.randn(2, 12, 5, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([12, 7])
    mask = in_band(lengths, 12, 2)
    weights = torch.randn(2, 12, 5, 7, dtype=torch.float64) * mask[..., None]
    banded = scorer(X, lengths, band=2)
    whole = gather_band(scorer(X, lengths), 2)
    d_banded = torch.autograd.grad((banded * weights).sum(), X)[0]
    d_whole = torch.autograd.grad((whole * weights).sum(), X)[0]
    assert torch.allclose(d_banded, d_whole, atol=1e-10)


def test_band_helpers_read_the_right_cells():
    grid = torch.arange(5 * 5).reshape(1, 5, 5, 1)
    banded = gather_band(grid, 1)[0, :, :, 0]
    # Row 2 holds cells (2, 1), (2, 2), (2, 3); the edges clamp into the grid.
    assert banded[2].tolist() == [11, 12, 13]
    assert banded[0, 1:].tolist() == [0, 1]
    assert banded[4, :2].tolist() == [23, 24]
    tokens = torch.arange(5).reshape(1, 5, 1)
    assert gather_columns(tokens, 2)[0, 3, :, 0].tolist() == [1, 2, 3, 4, 4]
    assert band_columns(1, 2, torch.device("cpu")).tolist() == [[0, 0, 0, 0, 0]]


@pytest.mark.parametrize("grad", [True, False])
def test_linear_of_blocks_is_the_linear_of_their_concatenation(grad):
    torch.manual_seed(0)
    blocks = [torch.randn(2, 5, 5, width, dtype=torch.float64) for width in (3, 4, 2)]
    weight, bias = torch.randn(6, 9, dtype=torch.float64), torch.randn(6, dtype=torch.float64)
    with torch.set_grad_enabled(grad):
        expected = torch.nn.functional.linear(torch.cat(blocks, -1), weight, bias)
        assert torch.allclose(linear_of_blocks(blocks, weight, bias), expected)
    with pytest.raises(ValueError):
        linear_of_blocks(blocks[:2], weight, bias)


@pytest.mark.parametrize("lengths", [[6, 6], [6, 3]])
@pytest.mark.parametrize("parallel", [True, False])
def test_convolution_blocks_are_the_output_apart(lengths, parallel):
    torch.manual_seed(1)
    convolutions = DilatedConvolutions(3, (1, 2), parallel=parallel).double()
    token_mask = torch.arange(6)[None, :] < torch.tensor(lengths)[:, None]
    cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
    grid = torch.randn(2, 6, 6, 3, dtype=torch.float64) * cell_mask[..., None]
    expected = convolutions(grid, cell_mask)
    with torch.no_grad():
        blocks = convolutions.blocks(grid, cell_mask)
    assert [block.shape for block in blocks] == [(2, 6, 6, 3)] * 2
    assert torch.allclose(torch.cat(blocks, -1), expected)
    assert (expected[~cell_mask] == 0).all()
