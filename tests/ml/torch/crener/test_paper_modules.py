"""The CRENER paper's pieces as torch modules: the adapted Transformer's
relative attention, the attention embedding E^a, the paper's CLN bias, the
parallel dilated convolutions, the per-rate tag projection and the
two-stream relation enhancement; and the scorer with all of them on."""
import pytest
import torch

from spacy_globalner.ml.torch.crener.adapted_transformer import (
    AdaptedTransformer,
    RelativeSelfAttention,
    relative_sinusoids,
)
from spacy_globalner.ml.torch.crener.attention_embedding import AttentionEmbedding
from spacy_globalner.ml.torch.crener.conditional_layer_norm import ConditionalLayerNorm
from spacy_globalner.ml.torch.crener.dilated_convolution import DilatedConvolutions
from spacy_globalner.ml.torch.crener.relation_enhancement import TagProjection, TwoStreamEnhancement
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer
from spacy_globalner.ml.torch.crener.settings import CRENERSettings
from tests.helpers.crener import TINY_SCORER, grid_masks

PAPER = dict(
    transformer_depth=1,
    attention_embedding_width=3,
    parallel_dilations=True,
    cln_bias_from="object",
    enhancement="paper",
    enhancement_rounds=2,
    predictor_input="grid+tags",
)


def _double(module):
    torch.manual_seed(0)
    module = module.double()
    for parameter in module.parameters():
        torch.nn.init.normal_(parameter, std=0.5)
    return module


def test_relative_sinusoids_tell_direction_and_distance():
    R = relative_sinusoids(5, 6, torch.device("cpu"))
    assert R.shape == (9, 6)
    zero, plus, minus = R[4], R[5], R[3]
    assert torch.allclose(zero[0::2], torch.zeros(3)) and torch.allclose(zero[1::2], torch.ones(3))
    assert torch.allclose(plus[0::2], -minus[0::2]) and torch.allclose(plus[1::2], minus[1::2])
    assert not torch.allclose(plus, minus)


def _reference_attention(attention: RelativeSelfAttention, X, token_mask):
    """Eq. (2)-(3) written out over explicit (i, j) pairs, no distance tricks."""
    batch, n, width = X.shape
    h, d = attention.heads, attention.head_width
    q, k, v = attention.qkv(X).view(batch, n, 3, h, d).unbind(dim=2)
    R = relative_sinusoids(n, width, X.device).to(X.dtype)
    index = torch.arange(n)[None, :] - torch.arange(n)[:, None] + n - 1  # (i, j) -> d
    key_R = attention.key_position(R)[index].view(n, n, h, d)
    value_R = attention.value_position(R)[index].view(n, n, h, d)
    scores = (
        torch.einsum("bihd,bjhd->bhij", q, k)
        + torch.einsum("bihd,ijhd->bhij", q, key_R)
        + torch.einsum("hd,bjhd->bhj", attention.u, k)[:, :, None, :]
        + torch.einsum("hd,ijhd->hij", attention.v, key_R)[None]
    )  # no / sqrt(d): un-scaled
    scores = scores.masked_fill(~token_mask[:, None, None, :], torch.finfo(scores.dtype).min)
    weights = scores.softmax(-1)
    out = torch.einsum("bhij,bjhd->bihd", weights, v) + torch.einsum("bhij,ijhd->bihd", weights, value_R)
    return attention.output(out.reshape(batch, n, width))


def test_relative_attention_matches_equations_and_ignores_padding():
    attention = _double(RelativeSelfAttention(6, 2))
    X = torch.randn(2, 5, 6, dtype=torch.float64)
    token_mask, _ = grid_masks([5, 3], 5)
    out = attention(X, token_mask)
    assert out.shape == (2, 5, 6) and out.dtype == torch.float64
    expected = _reference_attention(attention, X, token_mask)
    assert torch.allclose(out[0], expected[0]) and torch.allclose(out[1, :3], expected[1, :3])
    alone = attention(X[1:, :3], token_mask[1:, :3])
    assert torch.allclose(out[1, :3], alone[0])


def test_relative_attention_is_unscaled():
    """Doubling W_q doubles the content scores: with scaling by sqrt(d_k)
    the weights would match a model whose W_q is scaled by sqrt(d_k)."""
    attention = _double(RelativeSelfAttention(4, 1))
    with torch.no_grad():
        attention.key_position.weight.zero_()
        attention.u.zero_()
        attention.v.zero_()
    X = torch.randn(1, 3, 4, dtype=torch.float64)
    mask = torch.ones(1, 3, dtype=torch.bool)
    q, k, _ = attention.qkv(X).view(1, 3, 3, 1, 4).unbind(dim=2)
    weights = (q[0, :, 0] @ k[0, :, 0].T).softmax(-1)
    value_rows = attention.qkv(X)[0, :, 8:] + attention.value_position(relative_sinusoids(3, 4, X.device).double())[
        torch.arange(3)[None, :] - torch.arange(3)[:, None] + 2
    ]
    expected = attention.output(torch.einsum("ij,ijd->id", weights, value_rows))
    assert torch.allclose(attention(X, mask)[0], expected)


def test_relative_attention_and_transformer_gradcheck():
    attention = _double(RelativeSelfAttention(4, 2))
    X = torch.randn(1, 3, 4, dtype=torch.float64, requires_grad=True)
    mask = torch.tensor([[True, True, False]])
    assert torch.autograd.gradcheck(lambda x: attention(x, mask), (X,))
    transformer = _double(AdaptedTransformer(4, 1, 2))
    assert torch.autograd.gradcheck(lambda x: transformer(x, mask), (X,))


def test_transformer_shapes_padding_and_backward():
    torch.manual_seed(0)
    transformer = AdaptedTransformer(8, 2, 2).eval()
    X = torch.randn(2, 6, 8, requires_grad=True)
    token_mask, _ = grid_masks([6, 2], 6)
    out = transformer(X, token_mask)
    assert out.shape == X.shape and (out[1, 2:] == 0).all()
    assert torch.allclose(out[1, :2], transformer(X[1:, :2], token_mask[1:, :2])[0], atol=1e-5)
    out[0].sum().backward()
    assert X.grad[0].abs().sum() > 0 and (X.grad[1] == 0).all()


def test_attention_embedding_rows_and_gradcheck():
    torch.manual_seed(0)
    embedding = AttentionEmbedding(6, 3, key_width=4)
    tokens = torch.randn(2, 5, 6)
    token_mask, cell_mask = grid_masks([5, 2], 5)
    E = embedding(tokens, token_mask)
    assert E.shape == (2, 5, 5, 3)
    # Each real row's weights sum to the length (softmax times length) ...
    assert torch.allclose(E[0].sum(dim=1), torch.full((5, 3), 5.0), atol=1e-5)
    assert torch.allclose(E[1, :2].sum(dim=1), torch.full((2, 3), 2.0), atol=1e-5)
    # ... and nothing outside the sequence.
    assert (E[1][~cell_mask[1]] == 0).all()
    double = _double(AttentionEmbedding(3, 2, key_width=2))
    x = torch.randn(1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: double(t, torch.ones(1, 3, dtype=torch.bool)), (x,))


def test_cln_bias_from_object_depends_on_the_column():
    torch.manual_seed(0)
    cln = ConditionalLayerNorm(4, bias_from="object")
    torch.nn.init.normal_(cln.to_bias.weight)  # gain generator stays zero
    x, condition = torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    grid = cln(x, condition)
    # Gain from nobody (zero generator), bias from column j: every row equal.
    assert torch.allclose(grid[0, 0], grid[0, 1]) and torch.allclose(grid[0, 0], grid[0, 2])
    w2ner = ConditionalLayerNorm(4)
    w2ner.to_bias.weight.data.copy_(cln.to_bias.weight.data)
    assert not torch.allclose(w2ner(x, condition)[0, 0], w2ner(x, condition)[0, 1])
    double = _double(ConditionalLayerNorm(3, bias_from="object"))
    x = torch.randn(1, 3, 3, dtype=torch.float64, requires_grad=True)
    c = torch.randn(1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(double, (x, c))
    with pytest.raises(ValueError):
        ConditionalLayerNorm(3, bias_from="column")


def test_parallel_dilations_read_the_input():
    torch.manual_seed(0)
    convolutions = DilatedConvolutions(4, (1, 2), parallel=True)
    _, cell_mask = grid_masks([5, 3], 5)
    grid = torch.randn(2, 5, 5, 4).masked_fill(~cell_mask[..., None], 0.0)
    out = convolutions(grid, cell_mask)
    assert out.shape == (2, 5, 5, 8)
    second = torch.nn.functional.gelu(
        convolutions.convolutions[1](grid.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
    ) * cell_mask[..., None]
    assert torch.allclose(out[..., 4:], second, atol=1e-6)
    alone = convolutions(grid[1:, :3, :3], cell_mask[1:, :3, :3])
    assert torch.allclose(out[1, :3, :3], alone[0], atol=1e-6)
    sequential = DilatedConvolutions(4, (1, 2))
    sequential.load_state_dict(convolutions.state_dict())
    assert not torch.allclose(sequential(grid, cell_mask)[..., 4:], second, atol=1e-3)


def test_tag_projection_is_one_linear_per_rate():
    torch.manual_seed(0)
    projection = TagProjection(conv_width=3, n_rates=2, n_out=4)
    grid = torch.randn(2, 5, 5, 6)
    tags = projection(grid)
    assert tags.shape == (2, 5, 5, 8)
    first = grid[..., :3] @ projection.weight[0] + projection.bias[0]
    second = grid[..., 3:] @ projection.weight[1] + projection.bias[1]
    assert torch.allclose(tags, torch.cat((first, second), dim=-1), atol=1e-6)
    double = _double(TagProjection(2, 2, 3))
    x = torch.randn(1, 2, 2, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(double, (x,))


def test_two_stream_enhancement_shapes_batching_and_gradcheck():
    torch.manual_seed(0)
    enhancement = TwoStreamEnhancement(tag_width=5, width=6, heads=2).eval()
    token_mask, cell_mask = grid_masks([5, 2], 5)
    tags, subjects, objects = torch.randn(2, 5, 5, 5), torch.randn(2, 5, 6), torch.randn(2, 5, 6)
    H_s, H_o = enhancement(tags, subjects, objects, cell_mask, token_mask)
    assert H_s.shape == H_o.shape == (2, 5, 6) and (H_s[1, 2:] == 0).all()
    assert not torch.allclose(H_s, H_o)  # separate streams
    alone = enhancement(tags[1:, :2, :2], subjects[1:, :2], objects[1:, :2], cell_mask[1:, :2, :2], token_mask[1:, :2])
    assert torch.allclose(H_s[1, :2], alone[0][0], atol=1e-5) and torch.allclose(H_o[1, :2], alone[1][0], atol=1e-5)
    double = _double(TwoStreamEnhancement(3, 2, 1)).eval()
    mask, cells = grid_masks([3], 3)
    inputs = (
        torch.randn(1, 3, 3, 3, dtype=torch.float64, requires_grad=True),
        torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True),
        torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True),
    )
    assert torch.autograd.gradcheck(lambda t, s, o: double(t, s, o, cells, mask), inputs)


def test_paper_enhancement_feeds_back_through_cln_and_convolutions():
    """With two paper rounds the CLN and the convolutions run three times."""
    scorer = CRENERScorer(4, CRENERSettings(**{**TINY_SCORER, **PAPER}))
    calls = {"cln": 0, "conv": 0}
    scorer.layer_norm.register_forward_hook(lambda *_: calls.__setitem__("cln", calls["cln"] + 1))
    scorer.convolutions.register_forward_hook(lambda *_: calls.__setitem__("conv", calls["conv"] + 1))
    scorer(torch.randn(1, 4, 5), torch.tensor([4]))
    assert calls == {"cln": 3, "conv": 3}


@pytest.mark.parametrize(
    "options",
    [PAPER, {"transformer_depth": 1, "context_depth": 0}, {"predictor_input": "tags"}, {"enhancement": "paper"}],
    ids=["paper", "transformer-only", "tags", "paper-enhancement"],
)
def test_scorer_options_shapes_backward_batching(options):
    torch.manual_seed(0)
    scorer = CRENERScorer(6, CRENERSettings(**{**TINY_SCORER, **options}))
    X = torch.randn(3, 7, 5, requires_grad=True)
    lengths = torch.tensor([7, 4, 1])
    scores = scorer(X, lengths)
    assert scores.shape == (3, 7, 7, 7) and scores.dtype == torch.float32
    scores[0].sum().backward()
    assert X.grad[0].abs().sum() > 0 and (X.grad[1:] == 0).all()
    assert all(p.grad is not None for p in scorer.parameters())
    scorer.eval()
    with torch.no_grad():
        batched = scorer(X, lengths)
        for i, n in enumerate(lengths.tolist()):
            alone = scorer(X[i : i + 1, :n], lengths[i : i + 1])
            assert torch.allclose(batched[i, :n, :n], alone[0], atol=1e-5)


def test_paper_scorer_gradcheck_tiny():
    torch.manual_seed(0)
    tiny = {**TINY_SCORER, **PAPER, "token_width": 4, "grid_width": 2, "conv_width": 2, "attention_embedding_width": 1}
    scorer = CRENERScorer(3, CRENERSettings(**tiny)).double().eval()
    X = torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([3])
    scorer(X, lengths)  # materialise the lazy input projection
    assert torch.autograd.gradcheck(lambda x: scorer(x, lengths), (X,), atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_paper_scorer_is_finite_in_reduced_precision(dtype):
    torch.manual_seed(0)
    scorer = CRENERScorer(6, CRENERSettings(**{**TINY_SCORER, **PAPER}))
    X = torch.randn(2, 9, 5) * 50
    lengths = torch.tensor([9, 4])
    scorer(X, lengths)
    with torch.autocast("cpu", dtype=dtype):
        scores = scorer(X, lengths)
    assert scores.dtype == dtype
    assert torch.isfinite(scores[0]).all() and torch.isfinite(scores[1, :4, :4]).all()
    half = scorer.to(dtype)
    assert torch.isfinite(half(X.to(dtype), lengths)[1, :4, :4]).all()
