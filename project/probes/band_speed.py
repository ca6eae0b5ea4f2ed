"""CPU time of GlobalPointer's band of dot products, forward and forward+backward:
the package's `band_products` against plain autograd through `unfold` (how the
package computed it before), one torch thread, best of 10, random queries and
keys of the sizes a training batch and a prediction batch of GENIA give
(5 labels; rows are packed tokens).

    python project/probes/band_speed.py
"""
import time
from typing import Callable, Tuple

import torch

from spacy_globalner.ml.torch.global_pointer.band import band_products

# (rows, heads, head_width, width): a 1,000-word training batch, a 256-doc
# prediction batch, the same at head width 32, and GermEval's 12 labels.
SHAPES = [(1000, 5, 64, 24), (6400, 5, 64, 24), (6400, 5, 32, 24), (6400, 12, 64, 24)]


def band_by_autograd(queries: torch.Tensor, keys: torch.Tensor, width: int) -> torch.Tensor:
    n_rows = queries.shape[0]
    keys = keys[: n_rows + width - 1]
    missing = n_rows + width - 1 - keys.shape[0]
    if missing:
        keys = torch.cat((keys, keys.new_zeros((missing,) + keys.shape[1:])))
    windows = keys.unfold(0, width, 1)
    return torch.matmul(queries.unsqueeze(2), windows).squeeze(2).transpose(1, 2)


def best_ms(step: Callable[[], object], repeats: int = 10) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        step()
        best = min(best, time.process_time() - start)
    return 1000 * best


def time_band(band: Callable, queries: torch.Tensor, keys: torch.Tensor, width: int) -> Tuple[float, float]:
    """Best forward and forward+backward ms, the backward from a dense gradient, as a loss gives."""
    d_band = torch.randn(queries.shape[0], width, queries.shape[1])
    with torch.no_grad():
        forward = best_ms(lambda: band(queries, keys, width))
    train = best_ms(lambda: band(queries, keys, width).backward(d_band))
    return forward, train


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for rows, heads, head_width, width in SHAPES:
        queries = torch.randn(rows, heads, head_width, requires_grad=True)
        keys = torch.randn(rows, heads, head_width, requires_grad=True)
        line = f"rows {rows}, heads {heads}, head width {head_width}, band width {width}:"
        for name, band in (("autograd", band_by_autograd), ("band_products", band_products)):
            forward, train = time_band(band, queries, keys, width)
            line += f" {name} forward {forward:.2f} ms, forward+backward {train:.2f} ms;"
        print(line.rstrip(";"), flush=True)


if __name__ == "__main__":
    main()
