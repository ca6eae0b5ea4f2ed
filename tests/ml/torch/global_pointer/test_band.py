import pytest
import torch

from spacy_globalner.ml.torch.global_pointer.band import band_products


def band_by_definition(queries, keys, width):
    """band[i, w, h] = q_i . k_(i+w), with zeros for keys past the end, cell by cell."""
    n_rows, n_heads, _ = queries.shape
    band = torch.zeros((n_rows, width, n_heads), dtype=queries.dtype)
    for i in range(n_rows):
        for w in range(width):
            if i + w < keys.shape[0]:
                band[i, w] = (queries[i] * keys[i + w]).sum(-1)
    return band


# (rows, extra keys beyond the rows, heads, head width, band width)
SHAPES = [(7, 0, 2, 4, 3), (7, 5, 2, 4, 3), (5, 0, 3, 4, 9), (1, 0, 1, 2, 1), (10, 2, 2, 6, 10), (12, 30, 1, 2, 4)]


@pytest.mark.parametrize("n_rows,extra,n_heads,head_width,width", SHAPES)
def test_band_products_and_their_gradients_are_the_definitions(n_rows, extra, n_heads, head_width, width):
    torch.manual_seed(0)
    queries = torch.randn(n_rows, n_heads, head_width, dtype=torch.float64, requires_grad=True)
    keys = torch.randn(n_rows + extra, n_heads, head_width, dtype=torch.float64, requires_grad=True)
    band = band_products(queries, keys, width)
    expected = band_by_definition(queries, keys, width)
    torch.testing.assert_close(band, expected)
    d_band = torch.randn_like(band)
    got = torch.autograd.grad(band, (queries, keys), d_band)
    wanted = torch.autograd.grad(expected, (queries, keys), d_band)
    for g, w in zip(got, wanted):
        torch.testing.assert_close(g, w)
    assert torch.autograd.gradcheck(lambda q, k: band_products(q, k, width), (queries, keys))


def test_band_products_take_strided_views_and_a_gradient_for_one_input():
    # The scorer passes queries and keys as views into one projection.
    torch.manual_seed(1)
    heads = torch.randn(9, 3, 2, 4, dtype=torch.float64, requires_grad=True)
    queries, keys = heads[:, :, 0], heads[:, :, 1]
    band = band_products(queries, keys, 5)
    torch.testing.assert_close(band, band_by_definition(queries, keys, 5))
    (d_heads,) = torch.autograd.grad(band.sum(), heads)
    (d_expected,) = torch.autograd.grad(band_by_definition(queries, keys, 5).sum(), heads)
    torch.testing.assert_close(d_heads, d_expected)
    frozen_keys = keys.detach()
    (d_queries,) = torch.autograd.grad(band_products(queries, frozen_keys, 5).sum(), queries)
    (d_queries_expected,) = torch.autograd.grad(band_by_definition(queries, frozen_keys, 5).sum(), queries)
    torch.testing.assert_close(d_queries, d_queries_expected)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_band_products_keep_a_half_precision_dtype_in_both_directions(dtype):
    torch.manual_seed(2)
    queries = torch.randn(20, 2, 8)
    keys = torch.randn(20, 2, 8)
    half_queries = queries.to(dtype).requires_grad_(True)
    half_keys = keys.to(dtype).requires_grad_(True)
    band = band_products(half_queries, half_keys, 6)
    assert band.dtype == dtype
    band.backward(torch.ones_like(band))
    assert half_queries.grad.dtype == dtype and half_keys.grad.dtype == dtype
    reference = band_products(queries, keys, 6)
    torch.testing.assert_close(band.float(), reference, atol=0.1, rtol=0.05)
