"""The paired test behind every claim (significance.py) and the per-sentence
counts it swaps (evaluate.py): counts that add up to spaCy's Scorer F, and
p-values that separate a consistent lead from noise."""
import sys

import numpy
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from tests.helpers import REPO_ROOT
from tests.helpers.trained_pipelines import GENIA_DEV, genia_docs

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

from evaluate import score_views, sentence_counts  # noqa: E402
from significance import f_score, format_counts, paired_randomization, parse_counts, pooled_p  # noqa: E402


def counts(rows):
    return numpy.array(rows, dtype=numpy.int64)


def test_identical_heads_are_never_significant():
    rows = counts([[1, 0, 0], [0, 1, 1], [2, 1, 0]] * 50)
    assert paired_randomization([rows], [rows]) == 1.0


def test_a_lead_on_many_sentences_is_significant_and_one_on_few_is_not():
    right, wrong = [1, 0, 0], [0, 1, 1]
    ours = counts([right] * 600 + [wrong] * 400)
    theirs = counts([right] * 560 + [wrong] * 440)  # 40 sentences where only ours is right
    assert paired_randomization([ours], [theirs]) < 0.001
    few_ours = counts([right] * 6 + [wrong] * 4)
    few_theirs = counts([right] * 5 + [wrong] * 5)  # the same 10 F on one sentence
    assert paired_randomization([few_ours], [few_theirs]) > 0.5


def test_seed_pairings_pool_and_a_run_without_counts_gives_no_p():
    right, wrong = "1 0 0", "0 1 1"
    ours = [{"seed": s, "test_sentences": {"ents": ",".join([right] * 70 + [wrong] * 30)}} for s in (0, 1, 2)]
    theirs = [{"seed": s, "test_sentences": {"ents": ",".join([right] * 60 + [wrong] * 40)}} for s in (0, 1, 2)]
    assert pooled_p(ours, theirs, "ents") < 0.01
    assert pooled_p(ours, theirs, "spans") is None
    assert pooled_p(ours, [{"seed": 5, "test_sentences": theirs[0]["test_sentences"]}], "ents") is None


def test_counts_round_trip_and_sum_to_spacys_scorer_f():
    rows = [(1, 0, 2), (0, 0, 0), (3, 1, 0)]
    assert parse_counts(format_counts(rows)).tolist() == [list(row) for row in rows]
    nlp = spacy.blank("en")
    references = genia_docs(nlp, limit=40, path=GENIA_DEV)
    examples = []
    for i, reference in enumerate(references):
        predicted = Doc(nlp.vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference])
        gold = list(reference.spans["sc"])
        # keep some gold spans, drop others, add a wrong one: a real mix of tp, fp, fn
        kept = [Span(predicted, s.start, s.end, label=s.label_) for j, s in enumerate(gold) if (i + j) % 3]
        if len(predicted) > 2 and i % 2:
            kept.append(Span(predicted, 0, 2, label="protein"))
        predicted.spans["sc"] = kept
        examples.append(Example(predicted, reference))
    per_sentence = sentence_counts(examples, "sc", nested=True)
    scores = score_views(examples, "sc", nested=True)
    for view in ("spans", "ents", "outer"):
        assert abs(float(f_score(numpy.array(per_sentence[view]).sum(0))) - scores[view]["f"]) < 1e-9, view
