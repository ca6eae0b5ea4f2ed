"""The CRF likelihood (torch) and the penalised transition matrix."""
import numpy
import pytest
import torch
from torch.func import functional_call

from spacy_globalner.decoding.lcrf_ner.iob import iob_forbidden
from spacy_globalner.ml.torch.lcrf_ner.likelihood import crf_log_partition, crf_nll, crf_path_score
from spacy_globalner.ml.torch.lcrf_ner.penalised_transitions import PenalisedTransitions
from tests.helpers.lcrf_brute_force import log_partition, path_score, random_case

LENGTHS = [1, 3, 4, 2, 0]


def as_torch(rng, lengths=LENGTHS, n_tags=5):
    emissions, transitions = random_case(rng, lengths, n_tags)
    return torch.tensor(emissions), torch.tensor(transitions), torch.tensor(lengths)


@pytest.mark.parametrize("seed", range(4))
def test_log_partition_equals_brute_force_with_padding(seed):
    emissions, transitions, lengths = as_torch(numpy.random.default_rng(seed))
    log_z = crf_log_partition(emissions, transitions, lengths)
    for row, length in enumerate(LENGTHS):
        if length == 0:
            assert log_z[row] == 0
        else:
            expected = log_partition(emissions[row, :length].numpy(), transitions.numpy())
            assert float(log_z[row]) == pytest.approx(expected, rel=1e-10)


def test_path_score_equals_brute_force_and_ignores_padding():
    rng = numpy.random.default_rng(0)
    emissions, transitions, lengths = as_torch(rng)
    tags = torch.tensor(rng.integers(0, 5, size=(len(LENGTHS), max(LENGTHS))))
    scores = crf_path_score(emissions, transitions, tags, lengths)
    for row, length in enumerate(LENGTHS):
        expected = 0.0 if length == 0 else path_score(
            emissions[row, :length].numpy(), transitions.numpy(), tags[row, :length].numpy()
        )
        assert float(scores[row]) == pytest.approx(expected)
    tags[0, 1:] = 3  # padding of the one-token doc
    assert float(crf_path_score(emissions, transitions, tags, lengths)[0]) == pytest.approx(float(scores[0]))


def test_nll_is_positive_and_float32_for_half_inputs():
    emissions, transitions, lengths = as_torch(numpy.random.default_rng(1))
    tags = torch.zeros(emissions.shape[:2], dtype=torch.int64)
    loss = crf_nll(emissions.half(), transitions.half(), tags, lengths)
    assert loss.dtype == torch.float32 and float(loss) > 0


def test_nll_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(2)
    emissions, transitions, lengths = as_torch(rng, lengths=[3, 1, 2], n_tags=3)
    tags = torch.tensor(rng.integers(0, 3, size=(3, 3)))
    emissions.requires_grad_(True)
    transitions.requires_grad_(True)
    assert torch.autograd.gradcheck(
        lambda e, t: crf_nll(e, t, tags, lengths), (emissions, transitions), eps=1e-6, atol=1e-6
    )


def test_padding_gets_no_gradient():
    emissions, transitions, lengths = as_torch(numpy.random.default_rng(3))
    emissions.requires_grad_(True)
    crf_nll(emissions, transitions, torch.zeros(emissions.shape[:2], dtype=torch.int64), lengths).backward()
    padding = torch.arange(emissions.shape[1])[None, :] >= lengths[:, None]
    assert (emissions.grad[padding] == 0).all()


def test_penalised_transitions_with_unit_factor_and_no_offset_is_a_plain_crf():
    forbidden = torch.as_tensor(iob_forbidden(2))
    module = PenalisedTransitions(forbidden, learn_penalties=False)
    assert float(module.w_factor) == 1.0 and float(module.w_absolute) == 0.0
    assert torch.equal(module(), module.weight)
    assert not module.w_factor.requires_grad and not module.w_absolute.requires_grad


def test_penalties_only_touch_forbidden_transitions():
    forbidden = torch.as_tensor(iob_forbidden(2))
    module = PenalisedTransitions(forbidden)
    with torch.no_grad():
        module.w_factor.fill_(3.0)
        module.w_absolute.fill_(2.0)
    scores = module()
    assert torch.equal(scores[~forbidden], module.weight[~forbidden])
    expected = 3.0 * module.weight[forbidden] - 2.0
    assert torch.allclose(scores[forbidden], expected)


def test_penalised_transitions_gradient_matches_finite_differences():
    module = PenalisedTransitions(torch.as_tensor(iob_forbidden(1))).double()
    weights = torch.randn(5, 5, dtype=torch.float64)

    def weighted_sum(weight, w_factor, w_absolute):
        params = {"weight": weight, "w_factor": w_factor, "w_absolute": w_absolute}
        return (functional_call(module, params, ()) * weights).sum()

    inputs = tuple(
        p.detach().clone().normal_().requires_grad_(True)
        for p in (module.weight, module.w_factor, module.w_absolute)
    )
    assert torch.autograd.gradcheck(weighted_sum, inputs)


def test_softmax_nll_is_crf_nll_with_zero_transitions():
    from spacy_globalner.ml.torch.lcrf_ner.likelihood import softmax_nll

    generator = torch.Generator().manual_seed(0)
    emissions = torch.randn(4, 6, 5, generator=generator, dtype=torch.float64, requires_grad=True)
    tags = torch.randint(0, 5, (4, 6), generator=generator)
    lengths = torch.tensor([6, 3, 0, 1])
    zeros = torch.zeros(7, 7, dtype=torch.float64)
    expected = crf_nll(emissions, zeros, tags, lengths)
    got = softmax_nll(emissions, tags, lengths)
    assert torch.allclose(got, expected)
    (grad_expected,) = torch.autograd.grad(expected, emissions)
    (grad_got,) = torch.autograd.grad(got, emissions)
    assert torch.allclose(grad_got, grad_expected)
    assert softmax_nll(emissions.float(), tags, lengths).dtype == torch.float32
