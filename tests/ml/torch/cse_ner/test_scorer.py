"""The CSE torch head and its loss: shapes, masking, fp32, finite differences."""
import torch
from torch.nn import functional as F

from spacy_globalner.ml.torch.cse_ner.scorer import CSENERScorer, cse_loss


def case(seed=0, n_docs=3, max_length=5, n_classes=4, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(n_docs, max_length, 2 + n_classes, generator=generator, dtype=dtype)
    starts = (torch.rand(n_docs, max_length, generator=generator) > 0.7).to(dtype)
    ends = (torch.rand(n_docs, max_length, generator=generator) > 0.7).to(dtype)
    classes = torch.randint(0, n_classes, (n_docs, max_length), generator=generator)
    mask = torch.arange(max_length)[None, :] < torch.tensor([5, 2, 0])[:, None]
    return logits, starts, ends, classes, mask


def test_scorer_output_layout():
    scorer = CSENERScorer(3)
    out = scorer(torch.randn(2, 4, 8))
    assert out.shape == (2, 4, 2 + 3 + 1)


def test_loss_is_the_sum_of_the_three_terms_over_real_tokens():
    logits, starts, ends, classes, mask = case()
    loss = cse_loss(logits, starts, ends, classes, mask)
    m = mask
    expected = (
        F.binary_cross_entropy_with_logits(logits[..., 0][m], starts[m], reduction="sum")
        + F.binary_cross_entropy_with_logits(logits[..., 1][m], ends[m], reduction="sum")
        + F.cross_entropy(logits[..., 2:][m], classes[m], reduction="sum")
    ) / 3
    assert torch.allclose(loss.double(), expected, rtol=1e-6)
    # Padding is ignored, whatever its logits.
    junk = logits.clone()
    junk[~mask] = 100.0
    assert torch.allclose(cse_loss(junk, starts, ends, classes, mask), loss)


def test_loss_is_fp32_for_half_logits():
    logits, starts, ends, classes, mask = case(dtype=torch.float32)
    loss = cse_loss(logits.half(), starts, ends, classes, mask)
    assert loss.dtype == torch.float32 and torch.isfinite(loss)


def test_gradient_matches_finite_differences():
    logits, starts, ends, classes, mask = case(seed=1)
    logits.requires_grad_(True)
    assert torch.autograd.gradcheck(
        lambda x: cse_loss(x, starts, ends, classes, mask).double(), (logits,), eps=1e-6, atol=1e-5
    )
