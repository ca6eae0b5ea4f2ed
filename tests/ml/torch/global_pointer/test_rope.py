import pytest
import torch

from tests.helpers.global_pointer import apply_rope


def test_rope_score_depends_on_relative_position_only():
    torch.manual_seed(0)
    q = torch.randn(1, 8, dtype=torch.float64)
    k = torch.randn(1, 8, dtype=torch.float64)

    def score(i, j):
        qi = apply_rope(q, torch.tensor([i]))
        kj = apply_rope(k, torch.tensor([j]))
        return float((qi * kj).sum())

    for offset in (0, 1, 5, 40):
        reference = score(0, offset)
        for start in (3, 17, 1000, 20_000):
            assert score(start, start + offset) == pytest.approx(reference, rel=1e-6, abs=1e-6)
    assert score(0, 1) != pytest.approx(score(0, 5))


def test_rope_keeps_shape_dtype_and_norm():
    x = torch.randn(5, 3, 16)
    rotated = apply_rope(x, torch.arange(5))
    assert rotated.shape == x.shape and rotated.dtype == x.dtype
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(apply_rope(x, torch.zeros(5, dtype=torch.long)), x)
    half = apply_rope(x.half(), torch.arange(5))
    assert half.dtype == torch.float16 and torch.isfinite(half).all()


def test_rope_scale_is_the_rotation_times_each_slots_factor():
    x = torch.randn(6, 3, 2, 16, dtype=torch.float64)
    positions = torch.tensor([0, 1, 2, 0, 1, 7])
    scaled = apply_rope(x, positions, torch.tensor([[0.125], [3.0]]))
    rotated = apply_rope(x, positions)
    torch.testing.assert_close(scaled[:, :, 0], rotated[:, :, 0] * 0.125)
    torch.testing.assert_close(scaled[:, :, 1], rotated[:, :, 1] * 3.0)
