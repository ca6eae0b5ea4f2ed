"""The negative log-likelihood of a linear-chain CRF, in float32 torch.

Transition matrices are indexed [from, to] over the tags plus START (index
n_tags) and END (n_tags + 1). The forward algorithm runs in log space,
vectorised over docs and tags; only the time steps are a Python loop.
"""
import torch


def crf_log_partition(
    emissions: torch.Tensor, transitions: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """log Z of each doc: the log-sum-exp of the scores of all tag sequences.

    emissions (torch.Tensor): Tag scores (n_docs, max_length, n_tags), padded.
    transitions (torch.Tensor): Scores [from, to], (n_tags + 2, n_tags + 2).
    lengths (torch.Tensor): Int number of tokens of each doc.
    RETURNS (torch.Tensor): (n_docs,); 0 for empty docs.
    """
    n_docs, max_length, n_tags = emissions.shape
    if max_length == 0:
        return emissions.new_zeros((n_docs,))
    start, end = transitions[n_tags, :n_tags], transitions[:n_tags, n_tags + 1]
    step = transitions[:n_tags, :n_tags]
    log_alpha = start[None, :] + emissions[:, 0]
    for t in range(1, max_length):
        stepped = torch.logsumexp(log_alpha[:, :, None] + step[None], dim=1) + emissions[:, t]
        # Padded steps keep the scores of the doc's last token.
        log_alpha = torch.where((t < lengths)[:, None], stepped, log_alpha)
    log_z = torch.logsumexp(log_alpha + end[None, :], dim=1)
    return torch.where(lengths > 0, log_z, torch.zeros_like(log_z))


def crf_path_score(
    emissions: torch.Tensor, transitions: torch.Tensor, tags: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """The score of one given tag sequence per doc.

    tags (torch.Tensor): Int64 tag ids (n_docs, max_length); padding may hold any tag.
    RETURNS (torch.Tensor): (n_docs,); 0 for empty docs.
    """
    n_docs, max_length, n_tags = emissions.shape
    if max_length == 0:
        return emissions.new_zeros((n_docs,))
    mask = torch.arange(max_length, device=emissions.device)[None, :] < lengths[:, None]
    tags = torch.where(mask, tags, torch.zeros_like(tags))
    emitted = emissions.gather(2, tags[:, :, None])[:, :, 0]
    stepped = transitions[tags[:, :-1], tags[:, 1:]]
    last = tags.gather(1, (lengths - 1).clamp(min=0)[:, None])[:, 0]
    score = (
        transitions[n_tags, tags[:, 0]]
        + (emitted * mask).sum(dim=1)
        + (stepped * mask[:, 1:]).sum(dim=1)
        + transitions[last, n_tags + 1]
    )
    return torch.where(lengths > 0, score, torch.zeros_like(score))


def crf_nll(
    emissions: torch.Tensor, transitions: torch.Tensor, tags: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """Mean negative log-likelihood of the gold tags over the docs, in float32
    (float64 inputs stay float64, for gradient checks).

    RETURNS (torch.Tensor): A scalar.
    """
    dtype = torch.promote_types(emissions.dtype, torch.float32)
    emissions, transitions = emissions.to(dtype), transitions.to(dtype)
    nll = crf_log_partition(emissions, transitions, lengths) - crf_path_score(
        emissions, transitions, tags, lengths
    )
    return nll.sum() / max(emissions.shape[0], 1)


def softmax_nll(emissions: torch.Tensor, tags: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """`crf_nll` with all-zero transitions, without the forward algorithm's
    loop: the tokens' softmax cross-entropy, summed per doc and averaged over
    the docs, in float32 (float64 inputs stay float64).

    RETURNS (torch.Tensor): A scalar.
    """
    dtype = torch.promote_types(emissions.dtype, torch.float32)
    emissions = emissions.to(dtype)
    n_docs, max_length, n_tags = emissions.shape
    if max_length == 0:
        return emissions.sum() * 0.0
    mask = torch.arange(max_length, device=emissions.device)[None, :] < lengths[:, None]
    tags = torch.where(mask, tags, torch.zeros_like(tags))
    log_probs = torch.log_softmax(emissions, dim=2).gather(2, tags[:, :, None])[:, :, 0]
    return -(log_probs * mask).sum() / max(n_docs, 1)
