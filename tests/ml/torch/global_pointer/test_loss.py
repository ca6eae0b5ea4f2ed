import numpy
import pytest
import torch

from spacy_globalner.ml.torch.global_pointer.loss import global_pointer_loss


def direct_loss(logits, gold, valid, group, n_groups):
    """The loss written out per group with numpy, straight from its definition."""
    losses = []
    for g in range(n_groups):
        cells = (group == g) & valid
        negatives = logits[cells & ~gold]
        positives = logits[cells & gold]
        losses.append(numpy.log1p(numpy.exp(negatives).sum()) + numpy.log1p(numpy.exp(-positives).sum()))
    return numpy.mean(losses)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loss_matches_direct_computation(seed):
    rng = numpy.random.default_rng(seed)
    shape = (7, 3, 2)
    logits = rng.normal(scale=3.0, size=shape)
    gold = rng.random(shape) < 0.2
    valid = rng.random(shape) < 0.8
    gold &= valid
    group = rng.integers(0, 4, size=shape)
    expected = direct_loss(logits, gold, valid, group, 4)
    got = global_pointer_loss(
        torch.tensor(logits), torch.tensor(gold), torch.tensor(valid), torch.tensor(group), 4
    )
    assert float(got) == pytest.approx(expected, rel=1e-9)


def test_loss_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(3)
    shape = (5, 4)
    logits = torch.tensor(rng.normal(size=shape), requires_grad=True)
    gold = torch.tensor(rng.random(shape) < 0.3)
    valid = torch.tensor(rng.random(shape) < 0.9) | gold
    group = torch.tensor(rng.integers(0, 3, size=shape))
    assert torch.autograd.gradcheck(
        lambda x: global_pointer_loss(x, gold, valid, group, 3), (logits,)
    )


def test_loss_is_finite_for_masked_half_precision_scores():
    floor = torch.finfo(torch.float16).min
    logits = torch.tensor([[floor, 30.0, -30.0], [floor, floor, 11.0]], dtype=torch.float16)
    valid = torch.tensor([[False, True, True], [False, False, True]])
    gold = torch.tensor([[False, False, True], [False, False, False]])
    group = torch.tensor([[0, 0, 0], [1, 1, 1]])
    leaf = logits.clone().requires_grad_(True)
    loss = global_pointer_loss(leaf, gold, valid, group, 2)
    loss.backward()
    assert loss.dtype == torch.float32 and torch.isfinite(loss)
    assert torch.isfinite(leaf.grad).all()
    assert (leaf.grad[~valid] == 0).all()
    # Perfect separation gives a loss near zero; a confident mistake a large one.
    perfect = global_pointer_loss(torch.tensor([9.0, -9.0]), torch.tensor([True, False]),
                                  torch.tensor([True, True]), torch.tensor([0, 0]), 1)
    wrong = global_pointer_loss(torch.tensor([-9.0, 9.0]), torch.tensor([True, False]),
                                torch.tensor([True, True]), torch.tensor([0, 0]), 1)
    assert float(perfect) < 1e-3 < 17.0 < float(wrong)
