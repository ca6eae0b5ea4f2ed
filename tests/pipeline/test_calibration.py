"""The threshold sweep of `spacy globalner calibrate` and the per-label thresholds
the decoders and components take."""
import numpy
import pytest
import spacy
import srsly

from spacy_globalner.decoding.crener.decode import decode_grid
from spacy_globalner.decoding.crener.tags import n_grid_tags
from spacy_globalner.decoding.probabilities import sigmoid
from spacy_globalner.pipeline.calibration import storable_cut, sweep_threshold
from tests.helpers.global_pointer import decode_band_scores


def brute_force_best_f(scores, hits, n_gold):
    """Best F over every threshold, by thresholding at each distinct score."""
    best = 0.0
    for cut in numpy.unique(scores):
        kept = scores >= cut
        tp = int((hits & kept).sum())
        best = max(best, 2.0 * tp / (kept.sum() + n_gold))
    return best


@pytest.mark.parametrize("seed", range(20))
def test_sweep_finds_the_best_f_of_any_threshold(seed):
    rng = numpy.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    # rounded scores: ties, which a cut must keep or drop together
    scores = numpy.round(0.05 + 0.9 * rng.random(n), 1).astype("float32")  # above the floor, 0
    hits = rng.random(n) < 0.4
    n_gold = int(hits.sum()) + int(rng.integers(0, 5))
    chosen = sweep_threshold(scores, hits, n_gold, floor_score=0.0)
    if not hits.any() or n_gold == 0:
        assert chosen is None
        return
    cut, precision, recall, f = chosen[:4]
    kept = scores > cut
    tp = int((hits & kept).sum())
    assert f == pytest.approx(brute_force_best_f(scores, hits, n_gold))
    assert f == pytest.approx(2.0 * tp / (kept.sum() + n_gold))
    assert (precision, recall) == pytest.approx((tp / kept.sum(), tp / n_gold))


def test_sweep_with_target_precision_keeps_it_with_the_most_recall():
    scores = numpy.asarray([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], dtype="float32")
    hits = numpy.asarray([True, False, True, True, False, True])
    # precision at each cut: 1, .5, .67, .75, .6, .67: the last cut with >= .7 keeps 4
    cut, precision, recall, _ = sweep_threshold(scores, hits, 5, 0.0, target_precision=0.7)[:4]
    assert 0.5 < cut < 0.6 and precision == pytest.approx(0.75) and recall == pytest.approx(0.6)
    cut, precision, _, _ = sweep_threshold(scores, hits, 5, 0.0, target_precision=1.0)[:4]
    assert 0.8 < cut < 0.9 and precision == 1.0
    assert sweep_threshold(scores, ~hits & False, 5, 0.0, target_precision=0.5) is None


def test_cut_between_two_scores_keeps_exactly_the_higher_ones_after_saving():
    """The threshold is a probability the decoder takes as it is, and what
    the cfg's JSON (10 decimals) gives back still lies between the scores."""
    logits = numpy.asarray([2.5, -1.25, -1.2499, 0.0], dtype="float32")
    scores = (0.5 * (1.0 + numpy.tanh(0.5 * logits.astype("float64")))).astype("float32")
    hits = numpy.asarray([True, False, True, True])
    cut, _, _, f = sweep_threshold(scores, hits, 3, floor_score=0.0)[:4]
    assert f == 1.0
    for threshold in (float(cut), srsly.json_loads(srsly.json_dumps({"t": float(cut)}))["t"]):
        (found,) = decode_band_scores(logits.reshape(4, 1, 1), [4], threshold)
        assert found.starts.tolist() == [0, 2, 3]


@pytest.mark.parametrize(
    "high, low", [(0.9, 0.1), (0.37754067, 0.37754064), (1e-7, 9.9e-8), (1e-12, 0.0), (1.0, 0.99999994)]
)
def test_storable_cut_lies_between_the_scores_after_saving(high, low):
    cut = storable_cut(high, low)
    loaded = srsly.json_loads(srsly.json_dumps({"t": cut}))["t"]  # ujson: 10 decimals, not always the nearest
    for value in (cut, loaded):
        assert value <= high
        if high - low > 1e-10:
            assert low < value


def test_band_decoder_takes_a_threshold_per_label():
    rng = numpy.random.default_rng(0)
    scores = rng.normal(size=(7, 3, 2)).astype("float32")
    thresholds = numpy.asarray([0.62, 0.38])
    both = decode_band_scores(scores, [4, 3], thresholds)
    for label_id, threshold in enumerate(thresholds):
        alone = decode_band_scores(scores, [4, 3], float(threshold))
        for doc_both, doc_alone in zip(both, alone):
            mine = doc_both.label_ids == label_id
            theirs = doc_alone.label_ids == label_id
            assert doc_both.starts[mine].tolist() == doc_alone.starts[theirs].tolist()
            assert doc_both.ends[mine].tolist() == doc_alone.ends[theirs].tolist()


def test_crener_decoder_takes_a_closing_threshold_per_label():
    rng = numpy.random.default_rng(1)
    n_labels = 2
    margins = rng.normal(size=(5, 5, n_grid_tags(n_labels))) + 0.5
    strict_p = float(sigmoid(1.0))
    both = decode_grid(margins, n_labels, 0.5, numpy.asarray([0.5, strict_p]))
    plain = decode_grid(margins, n_labels, 0.5)
    strict = decode_grid(margins, n_labels, 0.5, numpy.asarray([strict_p, strict_p]))
    assert (both.label_ids == 0).sum() == (plain.label_ids == 0).sum()
    assert (both.label_ids == 1).sum() == (strict.label_ids == 1).sum()
    assert (both.label_ids == 1).sum() < (plain.label_ids == 1).sum()


@pytest.mark.parametrize("value", [{"DNA": "high"}, {"DNA": float("nan")}, [0.1]])
def test_bad_thresholds_in_cfg_raise_a_catalogue_error(value):
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer")
    pipe.add_label("DNA")
    pipe.cfg["thresholds"] = value
    with pytest.raises(ValueError, match="E018"):
        pipe.label_thresholds()


def test_labels_without_a_calibrated_threshold_use_the_fallback():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer", config={"threshold": 0.25})
    for label in ("DNA", "RNA"):
        pipe.add_label(label)
    assert pipe.label_thresholds().tolist() == [0.25, 0.25]
    pipe.cfg["thresholds"] = {"RNA": 0.8}
    assert pipe.label_thresholds().tolist() == [0.25, 0.8]


def test_crener_thresholds_are_probabilities_with_threshold_as_fallback():
    """crener's `threshold` and its calibrated thresholds are probabilities,
    on the scale of the scores users read, as global_pointer's are."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("crener", config={"threshold": 0.8176})
    for label in ("DNA", "RNA"):
        pipe.add_label(label)
    pipe.cfg["thresholds"] = {"RNA": 0.9}
    assert pipe.label_thresholds().tolist() == [0.8176, 0.9]


@pytest.mark.parametrize("factory", ["global_pointer", "crener"])
def test_logit_thresholds_in_cfg_raise_a_catalogue_error(factory):
    """A threshold outside 0..1 is not a probability (a logit, say)."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(factory)
    pipe.add_label("DNA")
    pipe.cfg["thresholds"] = {"DNA": -1.25}
    with pytest.raises(ValueError, match=r"E051.*-1\.25"):
        pipe.label_thresholds()


def micro_f(cuts, per_label, n_gold_total):
    tp = sum(int((hits & (scores > cut)).sum()) for cut, (scores, hits) in zip(cuts, per_label))
    kept = sum(int((scores > cut).sum()) for cut, (scores, _) in zip(cuts, per_label))
    return 2.0 * tp / (kept + n_gold_total)


@pytest.mark.parametrize("seed", range(8))
def test_thresholds_of_all_labels_together_reach_the_best_micro_f(seed):
    from spacy.tokens import Doc, Span
    from spacy.training import Example

    from spacy_globalner.decoding import SpanArrays
    from spacy_globalner.pipeline.calibration import calibrate_thresholds

    rng = numpy.random.default_rng(seed)
    nlp = spacy.blank("en")
    labels = ["A", "B"]
    words = [f"w{i}" for i in range(10)]
    spans = [(s, e) for s in range(10) for e in range(s + 1, min(s + 4, 10) + 1)]
    reference = Doc(nlp.vocab, words=words)
    gold = [(s, e, label) for label in labels for s, e in spans if rng.random() < 0.15]
    reference.spans["sc"] = [Span(reference, s, e, label=label) for s, e, label in gold]
    example = Example(Doc(nlp.vocab, words=words), reference)
    starts, ends, label_ids, scores = [], [], [], []
    for label_id, label in enumerate(labels):
        for s, e in spans:
            is_gold = (s, e, label) in gold
            # label B scores worse: its best own-F cut hurts the micro F
            score = rng.random() * 0.5 + (0.45 if is_gold else 0.0) * (1.0 if label_id == 0 else 0.3)
            starts.append(s), ends.append(e), label_ids.append(label_id), scores.append(score)
    found = SpanArrays(numpy.asarray(starts), numpy.asarray(ends), numpy.asarray(label_ids),
                       numpy.asarray(scores, dtype="float32"))
    results = calibrate_thresholds([example], [found], labels, "sc", floor=0.0)
    per_label = []
    for label_id, label in enumerate(labels):
        mine = found.label_ids == label_id
        keys = list(zip(found.starts[mine].tolist(), found.ends[mine].tolist()))
        hits = numpy.asarray([(s, e, label) in gold for s, e in keys])
        per_label.append((found.scores[mine].astype("float64"), hits))
    chosen = [r.threshold if r.threshold is not None else 0.5 for r in results]
    best = max(
        micro_f((a, b), per_label, len(gold))
        for a in [0.0, *per_label[0][0], 1.0] for b in [0.0, *per_label[1][0], 1.0]
    )
    assert micro_f(chosen, per_label, len(gold)) == pytest.approx(best)


def test_candidates_none_of_which_align_with_the_gold_tokens():
    """A dev doc whose only candidates cross the reference's token boundaries
    counts nothing (as Scorer.score_spans), instead of failing the command."""
    from spacy.tokens import Doc, Span
    from spacy.training import Example

    from spacy_globalner.decoding import SpanArrays
    from spacy_globalner.pipeline.calibration import _match_candidates

    vocab = spacy.blank("en").vocab
    predicted = Doc(vocab, words=["IL", "-2", "gene"], spaces=[False, True, False])
    reference = Doc(vocab, words=["IL-", "2", "gene"], spaces=[False, True, False])
    reference.spans["sc"] = [Span(reference, 0, 2, label="DNA")]
    found = SpanArrays(numpy.asarray([0]), numpy.asarray([1]), numpy.asarray([0]), numpy.asarray([0.9], "f"))
    scores, is_gold, label_ids, gold_labels = _match_candidates(Example(predicted, reference), found, {"DNA": 0}, "sc")
    assert len(scores) == len(is_gold) == len(label_ids) == 0
    assert gold_labels.tolist() == [0]
