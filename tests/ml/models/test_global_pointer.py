import numpy
import pytest
import torch
from thinc.api import NumpyOps, get_current_ops

from spacy_globalner.decoding.global_pointer import band_cell_coordinates
from spacy_globalner.ml.models.global_pointer import global_pointer_head
from spacy_globalner.ml.torch.global_pointer.scorer import GlobalPointerScorer


def packed(lengths, width):
    positions = torch.cat([torch.arange(n) for n in lengths])
    return positions, width


def inside_docs(lengths, width):
    """Bool (rows, width): the cells whose span ends inside its doc."""
    return torch.as_tensor(band_cell_coordinates(lengths, width)[2])


@pytest.mark.parametrize("efficient", [False, True])
def test_scorer_shapes_and_batched_equals_unbatched(efficient):
    """Each doc's spans score the same alone and packed with others; the
    cells that cross into the next doc (left out by decoder and loss) hold
    finite products with its tokens or with the padding."""
    torch.manual_seed(0)
    scorer = GlobalPointerScorer(3, 8, efficient=efficient).eval()
    lengths = [4, 1, 6]
    docs = [torch.randn(n, 5) for n in lengths]
    X = torch.cat(docs)
    scores = scorer(X, *packed(lengths, 3))
    assert scores.shape == (11, 3, 3) and scores.dtype == torch.float32
    assert bool(torch.isfinite(scores).all())
    inside = inside_docs(lengths, 3)
    row = 0
    for doc in docs:
        alone = scorer(doc, *packed([len(doc)], 3))
        mine = inside[row : row + len(doc)]
        torch.testing.assert_close(scores[row : row + len(doc)][mine], alone[mine])
        row += len(doc)


def rotate(vector: torch.Tensor, position: int) -> torch.Tensor:
    """RoPE by the textbook: pair m of the vector turned by position * 10000^(-2m / d)."""
    d = vector.shape[-1]
    angles = position * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    even, odd = vector[0::2], vector[1::2]
    turned = torch.stack((even * angles.cos() - odd * angles.sin(), even * angles.sin() + odd * angles.cos()), -1)
    return turned.reshape(d)


@pytest.mark.parametrize("head_width", [8, 6])
@pytest.mark.parametrize("rope", [True, False])
def test_scorer_computes_the_scaled_rotary_dot_product(head_width, rope):
    """s(i, j, label) = R(i) q_i . R(j) k_j / sqrt(head_width), cell by cell,
    against the projection's weights (a head width that is not 4^k included)."""
    torch.manual_seed(0)
    n_labels, n = 2, 5
    scorer = GlobalPointerScorer(n_labels, head_width, rope=rope).double()
    X = torch.randn(n, 3, dtype=torch.float64)
    scores = scorer(X, *packed([n], 3))
    heads = scorer.query_key(X).view(n, n_labels, 2, head_width).detach()
    for i in range(n):
        for width in range(min(3, n - i)):
            j = i + width
            for label in range(n_labels):
                q, k = heads[i, label, 0], heads[j, label, 1]
                if rope:
                    q, k = rotate(q, i), rotate(k, j)
                expected = float(q @ k) / head_width**0.5
                assert float(scores.detach()[i, width, label]) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_scorer_without_rope_is_position_blind():
    torch.manual_seed(0)
    scorer = GlobalPointerScorer(1, 8, rope=False)
    token = torch.randn(1, 5)
    X = token.repeat(6, 1)
    scores = scorer(X, *packed([6], 2))
    torch.testing.assert_close(scores[0, 1], scores[3, 1])
    with_rope = GlobalPointerScorer(1, 8, rope=True)
    with_rope.load_state_dict(scorer.state_dict())
    rotated = with_rope(X, *packed([6], 2))
    # Same content, same offset: RoPE scores depend on j - i only.
    torch.testing.assert_close(rotated[0, 1], rotated[3, 1])


def test_efficient_variant_has_fewer_parameters():
    n_in, width, n_labels = 96, 64, 12
    full = GlobalPointerScorer(n_labels, width)
    efficient = GlobalPointerScorer(n_labels, width, efficient=True)
    X = torch.randn(3, n_in)
    full(X, *packed([3], 2))
    efficient(X, *packed([3], 2))

    def count(module):
        return sum(p.numel() for p in module.parameters())

    assert count(full) == n_in * 2 * width * n_labels + 2 * width * n_labels
    assert count(efficient) < count(full) / 5


@pytest.mark.parametrize("efficient", [False, True])
def test_scorer_gradient_matches_finite_differences(efficient):
    """Through the offset, which the scorer adds in place on the band; every
    cell, those past a doc's end included (the loss gives them no gradient)."""
    torch.manual_seed(0)
    scorer = GlobalPointerScorer(2, 4, efficient=efficient).double()
    X = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    scorer(X, *packed([3, 2], 2))  # materialise the lazy projection

    def scores(x):
        return scorer(x, *packed([3, 2], 2), offset=-1.5)

    assert torch.autograd.gradcheck(scores, (X,))


def test_thinc_head_initialize_forward_backward():
    ops = get_current_ops()
    head = global_pointer_head(head_width=8)
    head.set_dim("nO", 2)
    head.attrs["max_span_width"] = 3
    X = [ops.asarray2f(numpy.random.default_rng(0).normal(size=(n, 6)).astype("float32")) for n in (5, 0, 2)]
    head.initialize(X=X)
    assert head.get_dim("nI") == 6
    scores, backprop = head(X, is_train=True)
    assert scores.shape == (7, 3, 2) and scores.dtype == numpy.float32
    d_scores = ops.alloc3f(*scores.shape)
    d_scores[0, 0, 0] = 1.0
    dX = backprop(d_scores)
    assert [dx.shape for dx in dX] == [x.shape for x in X]
    assert float(abs(ops.to_numpy(dX[0])).sum()) > 0
    # The band is never wider than the longest doc.
    short, _ = head([X[2]], is_train=False)
    assert short.shape == (2, 2, 2)
    empty, backprop_empty = head([X[1]], is_train=True)
    assert empty.shape == (0, 0, 2)
    assert backprop_empty(empty)[0].shape == (0, 6)


def test_thinc_head_round_trips_through_bytes():
    X = [NumpyOps().asarray2f(numpy.random.default_rng(1).normal(size=(4, 6)).astype("float32"))]
    head = global_pointer_head(head_width=8)
    head.set_dim("nO", 2)
    head.initialize(X=X)
    fresh = global_pointer_head(head_width=8)
    fresh.set_dim("nO", 2)
    fresh.initialize()  # built, but with a lazy input width, as when loading
    fresh.from_bytes(head.to_bytes())
    numpy.testing.assert_array_equal(head.predict(X), fresh.predict(X))
