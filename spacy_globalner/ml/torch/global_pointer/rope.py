"""Rotary position embedding (RoPE, Su et al. 2021), computed from positions on the fly.

Rotating queries and keys by their absolute positions makes their dot product
depend on the relative position only: R(i)q . R(j)k = q . R(j - i)k. Because the
angles are computed per call, any document length works, however long.
"""

import torch

ROPE_BASE = 10_000


def rotary_angles(positions: torch.Tensor, width: int) -> torch.Tensor:
    """Angles of shape (n, width // 2): position * base^(-2m / width).

    In fp64: at position 20,000 an fp32 angle is already off by ~1e-3 radians.
    """
    exponents = torch.arange(0, width, 2, device=positions.device, dtype=torch.float64)
    inverse_freq = ROPE_BASE ** (-exponents / width)
    return positions.to(torch.float64)[:, None] * inverse_freq[None, :]


def rope_rotations(positions: torch.Tensor, width: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The unit complex numbers e^(i * angle) that turn each row's dimension
    pairs, (n, width // 2): complex128 for fp64 input, complex64 otherwise.

    Positions repeat across the docs of a batch: rotations come from a table
    of the distinct positions rather than being computed for every token.
    """
    complex_dtype = torch.complex128 if dtype == torch.float64 else torch.complex64
    n_positions = int(positions.max()) + 1 if positions.numel() else 0
    table = rotary_angles(torch.arange(n_positions, device=positions.device), width)
    return torch.polar(torch.ones_like(table), table).to(complex_dtype)[positions]


def rotate(x: torch.Tensor, rotations: torch.Tensor) -> torch.Tensor:
    """x (n, ..., width) with dimension pairs (2m, 2m + 1) read as complex
    numbers and multiplied by `rotations` (broadcast against the pairs): one
    complex product instead of the six real passes of the cos/sin formula
    (several times faster). The rotation runs in fp32 (fp64 stays fp64) and the result
    is cast back to x's dtype.
    """
    real = torch.float64 if x.dtype == torch.float64 else torch.float32
    pairs = torch.view_as_complex(x.to(real).reshape(x.shape[:-1] + (x.shape[-1] // 2, 2)).contiguous())
    return torch.view_as_real(pairs * rotations).reshape(x.shape).to(x.dtype)
