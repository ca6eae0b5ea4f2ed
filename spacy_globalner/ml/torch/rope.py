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


def apply_rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Rotate the last dimension of x (n, ..., width) by each row's position.

    Dimension pairs are (m, m + width/2). The rotation runs in at least fp32 and
    the result is cast back to x's dtype, so fp16/bf16 inputs keep their precision.
    """
    width = x.shape[-1]
    dtype = torch.promote_types(x.dtype, torch.float32)
    angles = rotary_angles(positions, width)
    angles = angles.reshape(angles.shape[:1] + (1,) * (x.dim() - 2) + angles.shape[1:])
    cos = torch.cos(angles).to(dtype)
    sin = torch.sin(angles).to(dtype)
    x1, x2 = x[..., : width // 2].to(dtype), x[..., width // 2 :].to(dtype)
    rotated = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    return rotated.to(x.dtype)
