import pickle
import warnings

import numpy
import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example
from thinc.api import fix_random_seed

from spacy_globalner import GlobalPointer
from spacy_globalner.decoding.global_pointer import band_cell_coordinates
from tests.helpers.components import overfit_pipeline
from tests.helpers.global_pointer import TRAIN_DATA, make_examples, overfit, spans_of


def test_labels_from_data_and_explicit():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer")
    nlp.initialize(lambda: make_examples(nlp))
    assert pipe.labels == ("DNA", "cell_type", "protein")
    assert pipe.max_span_width == 3

    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer")
    pipe.initialize(lambda: make_examples(nlp), nlp=nlp, labels=["protein", "DNA", "cell_type", "RNA"])
    assert pipe.labels == ("protein", "DNA", "cell_type", "RNA")


def test_missing_labels_raise():
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer")
    examples = [Example.from_dict(nlp.make_doc("no entities here"), {})]
    with pytest.raises(ValueError, match=r"\[E025\]"):
        nlp.initialize(lambda: examples)


def test_predict_before_initialize_raises():
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer")
    with pytest.raises(ValueError, match="E002"):
        nlp("IL-2 gene")


def test_unknown_gold_label_raises():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer")
    with pytest.raises(ValueError, match=r"E003.*'DNA'"):
        pipe.initialize(lambda: make_examples(nlp), nlp=nlp, labels=["protein", "cell_type"])


def test_add_label_after_initialize_raises_and_bad_settings_are_caught():
    nlp, pipe, _ = overfit(n_iter=1)
    with pytest.raises(ValueError, match="E004"):
        pipe.add_label("RNA")
    assert pipe.add_label("DNA") == 0
    with pytest.raises(ValueError, match="E005"):
        pipe.add_label("")
    for bad in (0, -3):  # non-integers are caught by the config schema
        with pytest.raises(ValueError, match="E006"):
            spacy.blank("en").add_pipe("global_pointer", config={"max_span_width": bad})
    # threshold: a probability, as spancat's; a logit from an older config names its probability
    for bad in (float("nan"), -0.5, 1.5, float("inf")):
        with pytest.raises(ValueError, match=r"E050.*probability from 0 to 1, got " + str(bad)):
            GlobalPointer(nlp.vocab, pipe.model, threshold=bad, ents_filter=pipe.ents_filter)
    for good in (0, 0.0, 1.0, numpy.float64(0.3)):  # spacy find-threshold sets numpy floats, 0 and 1 too
        GlobalPointer(nlp.vocab, pipe.model, threshold=good, ents_filter=pipe.ents_filter)
    with pytest.raises(ValueError, match=r"E052.*got -1"):
        spacy.blank("en").add_pipe("global_pointer", config={"max_candidates": -1})


def test_too_narrow_max_span_width_warns_with_counts():
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config={"max_span_width": 2})
    with pytest.warns(UserWarning, match=r"W001.*1 gold span\(s\) of 7"):
        nlp.initialize(lambda: make_examples(nlp))


def test_overfit_head_round_trips(tmp_path):
    """The overfit head (tests/pipeline/test_components.py checks what it
    predicts) through to_disk and to_bytes. A new process that never imported
    spacy_globalner loads it through entry points in tests/shipping/
    test_multiprocess.py (the same predictions) and test_loading.py."""
    nlp, pipe, _ = overfit_pipeline("global_pointer")
    texts = [text for text, _ in TRAIN_DATA]
    docs = list(nlp.pipe(texts))
    assert all(len(doc.spans["sc"]) for doc in docs)
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    from_bytes = spacy.blank("en")
    from_bytes.add_pipe("global_pointer").from_bytes(pipe.to_bytes())
    for other in (loaded, from_bytes):
        for doc, text in zip(docs, texts):
            again = other(text)
            assert spans_of(again) == spans_of(doc)
            numpy.testing.assert_array_equal(again.spans["sc"].attrs["scores"], doc.spans["sc"].attrs["scores"])
    loaded_cfg = dict(loaded.get_pipe("global_pointer").cfg)
    # JSON keeps a float to its last bits only roughly
    assert loaded_cfg.pop("score_offset") == pytest.approx(pipe.cfg["score_offset"], abs=1e-12)
    assert loaded_cfg == {k: v for k, v in pipe.cfg.items() if k != "score_offset"}


def test_efficient_variant_learns_too():
    nlp, _, _ = overfit({"model": {"efficient": True}}, n_iter=50)
    doc = nlp(TRAIN_DATA[1][0])
    assert sorted(spans_of(doc)) == sorted(TRAIN_DATA[1][1])


def test_evaluate_reports_span_and_ents_scores():
    nlp, _, _ = overfit_pipeline("global_pointer")
    examples = make_examples(nlp)
    for example in examples:
        example.reference.ents = spacy.util.filter_spans(example.reference.spans["sc"])
    scores = nlp.evaluate(examples)
    for key in ("spans_sc_p", "spans_sc_r", "spans_sc_f", "spans_sc_per_type",
                "ents_p", "ents_r", "ents_f", "ents_per_type"):
        assert key in scores
    assert scores["spans_sc_f"] > 0.9
    assert set(scores["spans_sc_per_type"]) == {"DNA", "protein", "cell_type"}


def test_bad_and_unusual_docs():
    nlp, pipe, _ = overfit(n_iter=5)
    texts = ["", "   ", "\n\t", "CD28", "IL-2 " * 300, "Human T cells ."]
    docs = list(nlp.pipe(texts, batch_size=4))
    for doc in docs:
        assert all(0 <= s.start < s.end <= len(doc) for s in doc.spans["sc"])
        assert all(s.end - s.start <= pipe.max_span_width for s in doc.spans["sc"])
    assert len(docs[0].spans["sc"]) == 0
    # Mixed batch lengths give what single docs give.
    for text, doc in zip(texts, docs):
        assert spans_of(nlp(text)) == spans_of(doc)
    # Updating on empty docs is a no-op, not a crash.
    empty = [Example(nlp.make_doc(""), nlp.make_doc(""))]
    assert nlp.update(empty)["global_pointer"] == 0.0


def test_long_document_predicts_with_band_limited_memory():
    nlp, pipe, _ = overfit(n_iter=2)
    words = ("Human T cells express CD28 receptor . " * 3000).split()[:20_000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W050: a model of 2 updates may reach max_candidates
        doc = nlp(spacy.tokens.Doc(nlp.vocab, words=words))
    assert len(doc) == 20_000 and len(doc.spans["sc"]) <= pipe.cfg["max_candidates"]
    scores = pipe.predict([doc])
    assert scores.shape == (20_000, pipe.max_span_width, len(pipe.labels))


def test_pipe_pickles():
    nlp, pipe, _ = overfit(n_iter=10)
    clone = pickle.loads(pickle.dumps(nlp))
    text = TRAIN_DATA[0][0]
    assert spans_of(clone(text)) == spans_of(nlp(text))


def test_set_ents_off_and_the_default_longest_first_filter():
    """doc.ents is the outer layer by default, as the corpora's doc.ents are."""
    config = {"set_ents": False}
    nlp, _, _ = overfit(config, n_iter=30)
    doc = nlp(TRAIN_DATA[1][0])
    assert len(doc.spans["sc"]) > 0 and len(doc.ents) == 0
    nlp, _, _ = overfit_pipeline("global_pointer")
    assert nlp.config["components"]["global_pointer"]["ents_filter"] == {
        "@misc": "spacy-globalner.longest_first_filter.v1"}
    doc = nlp(TRAIN_DATA[1][0])
    assert [(e.start, e.end) for e in doc.ents] == [(0, 3), (4, 6)]


def test_gold_from_ents_when_spans_key_is_absent_and_retokenized_gold():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer", config={"spans_key": "genia"})
    words = ["IL-2", "gene", "and", "NF-kappa", "B", "."]
    reference = spacy.tokens.Doc(nlp.vocab, words=words)
    reference.ents = [Span(reference, 0, 2, "DNA"), Span(reference, 3, 5, "protein")]
    predicted = nlp.make_doc(reference.text)
    assert len(predicted) != len(reference)  # "NF-kappa" splits in spaCy's tokenizer
    example = Example(predicted, reference)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.initialize(lambda: [example])
    spans = pipe._gold_spans(example)
    assert [s.text for s in spans] == ["IL-2 gene", "NF-kappa B"]
    assert pipe.max_span_width == len(spans[1])


def test_tokenizer_that_does_not_match_the_corpus_is_an_error():
    nlp = spacy.blank("en")  # a rule tokenizer keeps a Chinese clause as one token
    nlp.add_pipe("global_pointer")
    examples = []
    for _ in range(12):
        text = "高勇男中国国籍无境外居留权"
        reference = spacy.tokens.Doc(nlp.vocab, words=list(text), spaces=[False] * len(text))
        reference.spans["sc"] = [Span(reference, 0, 2, "NAME"), Span(reference, 3, 5, "CONT")]
        examples.append(Example(nlp.make_doc(text), reference))
    with pytest.raises(ValueError, match=r"E011.*24 of 24.*ChineseTokenizer"):
        nlp.initialize(lambda: examples)


def test_update_on_unaligned_gold_warns_once_and_counts():
    nlp, pipe, _ = overfit(n_iter=1)
    clone = spacy.blank("en")
    clone_pipe = clone.add_pipe("global_pointer")
    clone_pipe.from_bytes(pipe.to_bytes())  # a resumed pipe: never initialized here
    reference = spacy.tokens.Doc(clone.vocab, words=["IL-2", "gene", "x"])
    reference.spans["sc"] = [Span(reference, 0, 1, "protein")]  # ends inside "IL-2 ge"
    predicted = spacy.tokens.Doc(clone.vocab, words=["IL-2 ge", "ne", "x"], spaces=[False, True, False])
    example = Example(predicted, reference)
    with pytest.warns(UserWarning, match=r"W004.*1 gold span"):
        clone.update([example])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone.update([example])
    assert clone_pipe.n_unaligned_gold == 2


def test_cfg_edits_after_loading_take_effect():
    nlp, pipe, _ = overfit_pipeline("global_pointer")
    text = TRAIN_DATA[1][0]
    assert any(end - start == 3 for start, end, _ in spans_of(nlp(text)))
    original = pipe.cfg["max_span_width"]
    try:
        pipe.cfg["max_span_width"] = 2
        assert spans_of(nlp(text)) and all(end - start <= 2 for start, end, _ in spans_of(nlp(text)))
    finally:
        pipe.cfg["max_span_width"] = original


def test_cells_that_cross_a_doc_end_take_no_part_in_loss_or_spans():
    """The scorer leaves them unmasked: a packed batch's cell that pairs a
    doc's last tokens with the next doc's first is no span, whatever it holds."""
    nlp, pipe, examples = overfit(n_iter=1)
    docs = [example.predicted for example in examples]
    scores = pipe.predict(docs)
    lengths = [len(doc) for doc in docs]
    inside = band_cell_coordinates(lengths, scores.shape[1])[2]
    loss, d_scores = pipe.get_loss(examples, scores)
    assert (d_scores[~inside] == 0).all() and (d_scores[inside] != 0).any()
    crossing = scores.copy()
    crossing[~inside] = 50.0
    assert pipe.get_loss(examples, crossing)[0] == pytest.approx(loss)
    thresholds = pipe.label_thresholds()
    decoded = zip(pipe._decode_at(docs, crossing, thresholds), pipe._decode_at(docs, scores, thresholds))
    for with_crossing, plain in decoded:
        for field, expected in zip(with_crossing, plain):
            numpy.testing.assert_array_equal(field, expected)


def test_max_candidates_keeps_the_best_spans_of_an_untrained_model_and_warns():
    """An untrained model at threshold 0 makes every cell a span: the cap keeps
    the highest-scoring ones, in the order the uncapped spans have, and says so."""
    fix_random_seed(0)
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer", config={"threshold": 0.0, "max_candidates": 0})
    nlp.initialize(lambda: make_examples(nlp))
    text = TRAIN_DATA[1][0]  # 7 tokens, widths up to 3, 3 labels: 54 cells
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no bound, no warning
        first = nlp(text)
    everything = first.spans["sc"]
    assert len(everything) == 54
    pipe.cfg["max_candidates"] = 5
    with pytest.warns(UserWarning, match=r"W050") as record:
        second = nlp(text)
    message = str(record[0].message)
    # What happened and the setting that changes it, no guess at why.
    assert "found 54 spans in a doc of 7 tokens and kept the 5 highest-scoring" in message
    assert "set max_candidates to 54 or more" in message
    assert "nlp.get_pipe('global_pointer').cfg[\"max_candidates\"] = 54" in message
    assert "trained" not in message
    capped = second.spans["sc"]
    expected = sorted(zip(everything.attrs["scores"].tolist(), range(54)), key=lambda pair: -pair[0])[:5]
    assert [(span.start, span.end, span.label_) for span in capped] == [
        (everything[i].start, everything[i].end, everything[i].label_) for i in sorted(i for _, i in expected)
    ]
    assert sorted(capped.attrs["scores"].tolist()) == sorted(score for score, _ in expected)
    pipe.cfg["max_candidates"] = 54  # exactly reached: not cut
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(nlp(text).spans["sc"]) == 54
    pipe.cfg["max_candidates"] = 20000
