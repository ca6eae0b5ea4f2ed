"""Brute-force references for the linear-chain CRF tests: enumerate every tag
sequence of a tiny doc. Transitions are [from, to] with START at n_tags and END
at n_tags + 1, as in spacy_globalner/decoding/lcrf_ner/iob.py.
"""
import itertools

import numpy


def all_paths(length, n_tags):
    return [numpy.asarray(path, dtype="int64") for path in itertools.product(range(n_tags), repeat=length)]


def path_score(emissions, transitions, path):
    n_tags = emissions.shape[1]
    score = transitions[n_tags, path[0]] + transitions[path[-1], n_tags + 1]
    score += emissions[numpy.arange(len(path)), path].sum()
    score += transitions[path[:-1], path[1:]].sum()
    return float(score)


def log_partition(emissions, transitions):
    scores = [path_score(emissions, transitions, p) for p in all_paths(*emissions.shape)]
    peak = max(scores)
    return peak + numpy.log(numpy.exp(numpy.asarray(scores) - peak).sum())


def best_path(emissions, transitions):
    paths = all_paths(*emissions.shape)
    return paths[int(numpy.argmax([path_score(emissions, transitions, p) for p in paths]))]


def path_probabilities(emissions, transitions):
    paths = all_paths(*emissions.shape)
    log_z = log_partition(emissions, transitions)
    return paths, numpy.exp([path_score(emissions, transitions, p) - log_z for p in paths])


def random_case(rng, lengths, n_tags, scale=2.0):
    """Padded emissions (n_docs, max_length, n_tags) with junk on the padding."""
    emissions = rng.normal(scale=scale, size=(len(lengths), max(lengths), n_tags))
    transitions = rng.normal(scale=scale, size=(n_tags + 2, n_tags + 2))
    return emissions, transitions
