"""The band of query-key dot products GlobalPointer scores: q_i . k_(i+w) for w < width.

Forward and backward are each one batched matrix product over windowed views of
the inputs, so neither materialises the (rows, heads, head_width, width) windows
of keys. Autograd through `unfold` would: its backward builds a gradient of that
size and scatters it back into the keys, several times slower on a CPU than
the backward written out here (docs/global_pointer.md, "Speed").
"""
import torch


def band_products(queries: torch.Tensor, keys: torch.Tensor, width: int) -> torch.Tensor:
    """(rows, width, heads): the dot product of query i with key i + w.

    queries (torch.Tensor): (rows, heads, head_width).
    keys (torch.Tensor): (rows + k, heads, head_width): the keys from the first
        query's token on; keys past the end are treated as zeros.
    """
    n_rows = queries.shape[0]
    keys = keys[: n_rows + width - 1]
    missing = n_rows + width - 1 - keys.shape[0]
    if missing:
        keys = torch.cat((keys, keys.new_zeros((missing,) + keys.shape[1:])))
    # A view of the product's own tensor, which the caller may write on in place.
    return BandProducts.apply(queries, keys, width).squeeze(2).transpose(1, 2)


class BandProducts(torch.autograd.Function):
    """band[i, h, 0, w] = queries[i, h] . keys[i + w, h], with exactly
    rows + width - 1 keys: the product as it comes, (rows, heads, 1, width),
    not a view of it (autograd forbids writing in place on a view made inside
    a custom Function)."""

    @staticmethod
    def forward(ctx, queries: torch.Tensor, keys: torch.Tensor, width: int) -> torch.Tensor:
        ctx.save_for_backward(queries, keys)
        ctx.width = width
        windows = keys.unfold(0, width, 1)  # (rows, heads, head_width, width), a view
        return torch.matmul(queries.unsqueeze(2), windows)

    @staticmethod
    def backward(ctx, d_product: torch.Tensor):
        queries, keys = ctx.saved_tensors
        width = ctx.width
        d_queries = d_keys = None
        if ctx.needs_input_grad[0]:
            # d q_i = sum_w d_band[i, w] k_(i+w): key windows times each row's gradients.
            windows = keys.unfold(0, width, 1).transpose(2, 3)  # (rows, heads, width, head_width)
            d_queries = torch.matmul(d_product.to(keys.dtype), windows).squeeze(2).to(queries.dtype)
        if ctx.needs_input_grad[1]:
            d_band = d_product.squeeze(2).transpose(1, 2).to(queries.dtype)  # (rows, width, heads)
            d_keys = _keys_gradient(queries, d_band, width).to(keys.dtype)
        return d_queries, d_keys, None


def _keys_gradient(queries: torch.Tensor, d_band: torch.Tensor, width: int) -> torch.Tensor:
    """d k_j = sum_w d_band[j - w, w] q_(j - w), for the rows + width - 1 keys.

    With width - 1 zero rows on both sides of the queries and of the gradient,
    key j reads the query window j .. j + width - 1 of the padded queries (slot
    t holds query j + t - width + 1, i.e. w = width - 1 - t) and the matching
    anti-diagonal of the padded gradient, a strided view of it.
    """
    n_rows, n_heads, head_width = queries.shape
    n_keys = n_rows + width - 1
    pad = width - 1
    padded_queries = torch.cat(
        (queries.new_zeros((pad, n_heads, head_width)), queries, queries.new_zeros((pad, n_heads, head_width)))
    )
    query_windows = padded_queries.unfold(0, width, 1).transpose(2, 3)  # (n_keys, heads, width, head_width)
    padded_d = torch.cat((d_band.new_zeros((pad, width, n_heads)), d_band, d_band.new_zeros((pad, width, n_heads))))
    row_stride, slot_stride, head_stride = padded_d.stride()
    # anti_diagonals[j, t, h] = padded_d[j + t, width - 1 - t, h]
    anti_diagonals = padded_d.as_strided(
        (n_keys, width, n_heads),
        (row_stride, row_stride - slot_stride, head_stride),
        padded_d.storage_offset() + pad * slot_stride,
    )
    by_key = anti_diagonals.transpose(1, 2).unsqueeze(2)  # (n_keys, heads, 1, width)
    return torch.matmul(by_key, query_windows).squeeze(2)
