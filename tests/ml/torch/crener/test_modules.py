"""The plain torch modules of CRENER: shapes, dtypes, backward, batched ==
unbatched, and finite-difference gradient checks on tiny instances."""
import pytest
import torch

from spacy_globalner.ml.torch.crener.biaffine import Biaffine
from spacy_globalner.ml.torch.crener.co_predictor import CoPredictor
from spacy_globalner.ml.torch.crener.conditional_layer_norm import ConditionalLayerNorm
from spacy_globalner.ml.torch.crener.context_encoder import BiLSTMContext
from spacy_globalner.ml.torch.crener.dilated_convolution import DilatedConvolutions
from spacy_globalner.ml.torch.crener.grid_position import GridPosition, distance_buckets, region_ids
from spacy_globalner.ml.torch.crener.loss import threshold_multilabel_loss
from spacy_globalner.ml.torch.crener.relation_enhancement import RelationEnhancement
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer
from spacy_globalner.ml.torch.crener.settings import CRENERSettings
from tests.helpers.crener import TINY_SCORER, grid_masks


def test_distance_buckets_and_regions():
    buckets = distance_buckets(10, torch.device("cpu"))
    offset = buckets[0, 0].item()
    assert (buckets.diagonal() == offset).all()
    assert [buckets[0, j].item() - offset for j in (1, 2, 3, 4, 7, 8, 9)] == [1, 2, 2, 3, 3, 4, 4]
    assert (buckets == 2 * offset - buckets.T).all()  # signed: below the diagonal mirrors above
    regions = region_ids(3, torch.device("cpu"))
    assert regions.tolist() == [[0, 1, 1], [2, 0, 1], [2, 2, 0]]
    assert GridPosition(3, 2)(4, torch.device("cpu")).shape == (4, 4, 5)


def test_conditional_layer_norm_shape_and_rows():
    torch.manual_seed(0)
    cln = ConditionalLayerNorm(6)
    torch.nn.init.normal_(cln.to_gain.weight)
    x, condition = torch.randn(2, 5, 6), torch.randn(2, 5, 6)
    grid = cln(x, condition)
    assert grid.shape == (2, 5, 5, 6) and grid.dtype == torch.float32
    # Row i depends on condition i only: change condition 3, only row 3 moves.
    moved = condition.clone()
    moved[:, 3] += 1.0
    changed = (cln(x, moved) - grid).abs().sum(dim=(0, 2, 3)) > 0
    assert changed.tolist() == [False, False, False, True, False]


def test_conditional_layer_norm_gradcheck():
    torch.manual_seed(0)
    cln = ConditionalLayerNorm(3).double()
    torch.nn.init.normal_(cln.to_gain.weight)
    torch.nn.init.normal_(cln.to_bias.weight)
    x = torch.randn(1, 3, 3, dtype=torch.float64, requires_grad=True)
    condition = torch.randn(1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(cln, (x, condition))


def test_biaffine_gradcheck_and_shape():
    torch.manual_seed(0)
    biaffine = Biaffine(3, 2).double()
    x = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    assert biaffine(x, y).shape == (2, 4, 4, 2)
    assert torch.autograd.gradcheck(biaffine, (x, y))


def test_bilstm_context_ignores_padding():
    torch.manual_seed(0)
    context = BiLSTMContext(6)
    X = torch.randn(2, 5, 6)
    batched = context(X, torch.tensor([5, 3]))
    alone = context(X[1:, :3], torch.tensor([3]))
    assert batched.shape == (2, 5, 6)
    assert torch.allclose(batched[1, :3], alone[0], atol=1e-6)


def test_dilated_convolutions_batched_equals_unbatched():
    torch.manual_seed(0)
    convolutions = DilatedConvolutions(4, (1, 2, 3))
    lengths = [6, 3]
    _, cell_mask = grid_masks(lengths, 6)
    grid = torch.randn(2, 6, 6, 4).masked_fill(~cell_mask[..., None], 0.0)
    batched = convolutions(grid, cell_mask)
    assert batched.shape == (2, 6, 6, 12)
    alone = convolutions(grid[1:, :3, :3], cell_mask[1:, :3, :3])
    assert torch.allclose(batched[1, :3, :3], alone[0], atol=1e-6)


def test_relation_enhancement_batched_equals_unbatched():
    torch.manual_seed(0)
    enhancement = RelationEnhancement(grid_width=6, token_width=8, tag_width=5, heads=2).eval()
    lengths = [5, 2]
    token_mask, cell_mask = grid_masks(lengths, 5)
    grid, tokens = torch.randn(2, 5, 5, 6), torch.randn(2, 5, 8)
    batched = enhancement(grid, tokens, cell_mask, token_mask)
    assert batched.shape == grid.shape
    alone = enhancement(grid[1:, :2, :2], tokens[1:, :2], cell_mask[1:, :2, :2], token_mask[1:, :2])
    assert torch.allclose(batched[1, :2, :2], alone[0], atol=1e-5)


def test_co_predictor_shape():
    predictor = CoPredictor(8, 6, 4, 5, n_out=7, dropout=0.0)
    assert predictor(torch.randn(2, 3, 8), torch.randn(2, 3, 3, 6)).shape == (2, 3, 3, 7)


@pytest.mark.parametrize("learned_threshold", [True, False])
def test_scorer_shapes_backward_and_batching(learned_threshold):
    torch.manual_seed(0)
    scorer = CRENERScorer(6, CRENERSettings(**TINY_SCORER, learned_threshold=learned_threshold))
    X = torch.randn(3, 7, 5, requires_grad=True)
    lengths = torch.tensor([7, 4, 1])
    scores = scorer(X, lengths)
    assert scores.shape == (3, 7, 7, 7) and scores.dtype == torch.float32
    if not learned_threshold:
        assert (scores[..., 0] == 0).all()
    scores[0, :7, :7].sum().backward()
    assert X.grad.shape == X.shape and X.grad[0].abs().sum() > 0
    assert (X.grad[1:] == 0).all()  # no leak between sequences
    scorer.eval()
    with torch.no_grad():
        batched = scorer(X, lengths)
        for i, n in enumerate(lengths.tolist()):
            alone = scorer(X[i : i + 1, :n], lengths[i : i + 1])
            assert torch.allclose(batched[i, :n, :n], alone[0], atol=1e-5)


def test_scorer_gradcheck_tiny():
    torch.manual_seed(0)
    settings = CRENERSettings(**{**TINY_SCORER, "token_width": 4, "grid_width": 3, "conv_width": 2})
    scorer = CRENERScorer(4, settings).double()
    X = torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([3])
    scorer(X, lengths)  # materialise the lazy input projection
    assert torch.autograd.gradcheck(lambda x: scorer(x, lengths), (X,), atol=1e-5)


def test_scorer_dropout_rate_is_settable():
    scorer = CRENERScorer(4, CRENERSettings(**TINY_SCORER, enhancement="paper"))
    scorer.set_dropout_rate(0.3)
    rates = {m.p for m in scorer.modules() if isinstance(m, torch.nn.Dropout)}
    rates |= {m.dropout for m in scorer.modules() if isinstance(m, torch.nn.MultiheadAttention)}
    assert rates == {0.3}


def test_threshold_loss_values_and_gradient():
    logits = torch.tensor([[0.0, 2.0, -1.0], [1.0, 0.5, 3.0]], requires_grad=True)
    gold = torch.tensor([[True, False], [False, False]])
    loss = threshold_multilabel_loss(logits, gold)
    first = torch.logsumexp(torch.tensor([0.0, -2.0]), 0) + torch.logsumexp(torch.tensor([0.0, -1.0]), 0)
    second = torch.tensor(-1.0) + torch.logsumexp(torch.tensor([1.0, 0.5, 3.0]), 0)
    assert torch.allclose(loss, (first + second) / 2)
    loss.backward()
    assert logits.grad[0, 1] < 0 and logits.grad[1, 2] > 0  # raise the positive, lower the negative
    double = logits.detach().double().requires_grad_()
    assert torch.autograd.gradcheck(lambda x: threshold_multilabel_loss(x, gold), (double,))


def test_threshold_loss_positive_weight():
    logits = torch.tensor([[0.0, 2.0, -1.0], [1.0, 0.5, 3.0], [0.0, 0.0, 0.0]])
    gold = torch.tensor([[True, False], [False, False], [False, False]])
    per_cell = torch.stack([threshold_multilabel_loss(logits[i : i + 1], gold[i : i + 1]) for i in range(3)])
    weighted = threshold_multilabel_loss(logits, gold, positive_weight=4.0)
    assert torch.allclose(weighted, (4 * per_cell[0] + per_cell[1] + per_cell[2]) / 6)
    assert torch.allclose(threshold_multilabel_loss(logits, gold), per_cell.mean())


def test_threshold_loss_fp16_input_is_fp32_and_finite():
    logits = (torch.randn(10, 5) * 20).half()
    gold = torch.rand(10, 4) > 0.7
    loss = threshold_multilabel_loss(logits, gold)
    assert loss.dtype == torch.float32 and torch.isfinite(loss)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_scorer_is_finite_in_reduced_precision(dtype):
    """Masks use the dtype's own minimum, so fp16/bf16 never overflow."""
    torch.manual_seed(0)
    scorer = CRENERScorer(6, CRENERSettings(**TINY_SCORER))
    X = torch.randn(2, 9, 5) * 50
    lengths = torch.tensor([9, 4])
    scorer(X, lengths)
    with torch.autocast("cpu", dtype=dtype):
        scores = scorer(X, lengths)
    assert scores.dtype == dtype
    assert torch.isfinite(scores[0]).all() and torch.isfinite(scores[1, :4, :4]).all()
    half = scorer.to(dtype)
    assert torch.isfinite(half(X.to(dtype), lengths)[1, :4, :4]).all()
