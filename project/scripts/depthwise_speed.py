"""CPU time of one of CRENER's depthwise 3 x 3 dilated convolutions, forward
and forward+backward: the package's `depthwise_convolution` against autograd
through `nn.Conv2d` (how the package ran it before), one torch thread, best of
10, channels-last random grids of the sizes a 40-doc GENIA training chunk gives.

    python scripts/depthwise_speed.py
"""
import time
from typing import Callable, Tuple

import torch

from spacy_globalner.ml.torch.crener.depthwise_convolution import depthwise_convolution

# (windows, tokens, channels): a chunk of 40 GENIA sentences padded to 44
# tokens, and one of 8 long ones, at the configs' conv_width of 48.
SHAPES = [(40, 44, 48), (8, 90, 48)]
DILATIONS = (1, 2, 3)


def best_ms(step: Callable[[], object], repeats: int = 10) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        step()
        best = min(best, time.process_time() - start)
    return 1000 * best


def time_convolution(run: Callable, x: torch.Tensor) -> Tuple[float, float]:
    """Best forward and forward+backward ms, the backward from a dense gradient."""
    d_y = torch.randn_like(x)
    with torch.no_grad():
        forward = best_ms(lambda: run(x))
    train = best_ms(lambda: run(x).backward(d_y))
    return forward, train


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for n_windows, n, width in SHAPES:
        grid = torch.randn(n_windows, width, n, n).contiguous(memory_format=torch.channels_last)
        x = grid.requires_grad_()
        for dilation in DILATIONS:
            conv = torch.nn.Conv2d(width, width, 3, dilation=dilation, padding=dilation, groups=width)
            line = f"grids {n_windows} x {n} x {n}, {width} channels, dilation {dilation}:"
            runs = (
                ("nn.Conv2d", conv),
                ("depthwise_convolution", lambda x: depthwise_convolution(x, conv.weight, conv.bias, dilation)),
            )
            for name, run in runs:
                forward, train = time_convolution(run, x)
                line += f" {name} forward {forward:.2f} ms, forward+backward {train:.2f} ms;"
            print(line.rstrip(";"), flush=True)


if __name__ == "__main__":
    main()
