"""Messy input: odd texts at prediction time, and training data with misaligned
offsets, empty docs, labels seen only in dev and spans across sentences. Each
case either works or fails with a catalogue error; nothing is dropped without
a warning that counts it.
"""
import math
import unicodedata
import warnings

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from tests.helpers.trained_pipelines import component_params, trained_dir

# A training sentence on which every small model predicts something, 385 times.
SENTENCE = ("Our data suggest that lipoxygenase metabolites activate ROI formation which "
            "then induce IL-2 expression via NF-kappa B activation .")
LONG_DOC = " ".join([SENTENCE] * 385)
MESSY_TEXTS = {
    "empty": "",
    "whitespace": " \n\t  ",
    "punctuation": "!!! ?? ... ;;; --- (( )) ,,, ''' \"\" ::",
    "emoji": "🧬 IL-2 🦠🦠 gene 👩‍🔬 expression 🔬🇬🇧",
    "control": "IL-2\x00 gene\x07 expression\x1b[31m in\x0b T\x0c cells\u200b\ufeff .",
    "long_token": "IL-2 " + "A" * 5000 + " gene " + "-" * 3000 + " .",
    "mixed_scripts": "IL-2 基因 表达 в клетках T-лимфоцитов, يعبر 유전자 NF-κB ΔΨ activation .",
    "long_doc": LONG_DOC,
    "ansi": "NF-κB \x00\x07\x1b[31m activates \x1b[1;32mIL-2\x1b[0m gene \x1b[K expression .",
    "c0_c1_controls": "\x01IL-2 \x02 \x7f gene\x1f \x85 \x9b expression \x08\x08 in T cells \x00",
    "zero_width": "\u200bIL-2\u200b \u200c gene \u200d \u2060 expression \ufeff in \u00ad T cells .",
    "rtl_marks": "\u200fIL-2 \u202b gene \u202e expression\u202c \u2067 in \u2069 T \u061c cells .",
    "whitespace_tokens": "IL-2  \n gene \u00a0 \u3000 expression \t\t in \u2028 T \u2003 cells .",
}


def _invisible(char: str) -> bool:
    """Characters no entity may start or end with (spacy_globalner.pipeline.edges)."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf")


@pytest.fixture(scope="module", params=component_params())
def nlp(request):
    # The small global_pointer is a few updates old: on the long doc it scores
    # more cells above its threshold than max_candidates allows (W050,
    # tests/pipeline/test_global_pointer.py); these tests are about edges.
    unbounded = {"components": {"global_pointer": {"max_candidates": 0}}}
    return spacy.load(trained_dir(request.param), config=unbounded if request.param == "global_pointer" else {})


def check_doc(doc: Doc, key: str) -> None:
    group = doc.spans[key]
    scores = group.attrs["scores"]
    assert len(scores) == len(group)
    assert all(math.isfinite(float(score)) for score in scores)
    for span in group:
        assert 0 <= span.start < span.end <= len(doc)
        check_edges(span)
    # doc.ents is flat by construction; its spans are among doc.spans' ones
    assert {(e.start, e.end, e.label_) for e in doc.ents} <= {
        (s.start, s.end, s.label_) for s in group
    }


def _clean_edges(span: Span) -> bool:
    """Does the span neither start nor end with whitespace or a format
    character, nor on a token holding a control character?"""
    first, last = span[0].text, span[-1].text
    has_control = any(unicodedata.category(c) == "Cc" for c in first + last)
    return not (_invisible(first[0]) or _invisible(last[-1]) or has_control)


def check_edges(span: Span) -> None:
    assert _clean_edges(span), repr(span.text)


@pytest.mark.parametrize("kind", list(MESSY_TEXTS))
def test_messy_texts_predict(nlp, kind):
    assert len(LONG_DOC) > 50_000
    name = nlp.pipe_names[-1]
    key = nlp.get_pipe(name).key
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # prediction has nothing to warn about
        doc = nlp(MESSY_TEXTS[kind])
        check_doc(doc, key)
        # batched with an ordinary text: the odd one does not disturb it
        docs = list(nlp.pipe([MESSY_TEXTS[kind], "IL-2 gene expression ."]))
    check_doc(docs[0], key)
    alone = nlp("IL-2 gene expression .")
    assert [(s.start, s.end, s.label_) for s in docs[1].spans[key]] == [
        (s.start, s.end, s.label_) for s in alone.spans[key]
    ]
    if kind == "long_doc":
        # nothing is cut off: the last repetition of the sentence gets spans
        # as the first does (context differs at the edges, so not equal ones)
        sentence = len(nlp.make_doc(SENTENCE))
        starts = [span.start for span in doc.spans[key]]
        assert min(starts) < sentence and max(starts) >= len(doc) - sentence


def _fresh(name: str):
    from tests.helpers.trained_pipelines import small_config

    nlp = spacy.blank("en")
    nlp.add_pipe(name, config=small_config(name))
    return nlp


def _example(nlp, words, spans, *, sent_starts=None):
    """A gold doc with `spans` [(start, end, label)] in doc.spans["sc"] and doc.ents."""
    reference = Doc(nlp.vocab, words=words, sent_starts=sent_starts)
    group = [Span(reference, s, e, label=label) for s, e, label in spans]
    reference.spans["sc"] = group
    reference.ents = spacy.util.filter_spans(group)
    return Example(nlp.make_doc(reference.text), reference)


@pytest.mark.parametrize("name", component_params())
def test_misaligned_gold_spans_warn_with_count(name):
    nlp = _fresh(name)
    # The gold tokenization splits "IL-2" where the pipeline's tokenizer does
    # not: a span on "IL" alone cannot be mapped, and is counted in W002.
    reference = Doc(nlp.vocab, words=["IL", "-2", "gene", "and", "CD28", "."],
                    spaces=[False, True, True, True, True, False])
    reference.spans["sc"] = [Span(reference, 0, 1, label="protein"),
                             Span(reference, 4, 5, label="protein")]
    reference.ents = list(reference.spans["sc"])
    example = Example(nlp.make_doc(reference.text), reference)
    assert [t.text for t in example.predicted][:2] == ["IL-2", "gene"]
    examples = [example, _example(nlp, ["IL-2", "gene"], [(0, 1, "protein")])]
    with pytest.warns(UserWarning, match=r"\[W002\] 1 gold span\(s\).*'IL'"):
        optimizer = nlp.initialize(lambda: examples)
    losses = nlp.update(examples, sgd=optimizer)
    assert math.isfinite(losses[name])


@pytest.mark.parametrize("name", component_params())
def test_empty_docs(name):
    nlp = _fresh(name)
    good = _example(nlp, ["IL-2", "gene", "expression"], [(0, 2, "DNA"), (0, 1, "protein")])
    empty = Example(nlp.make_doc(""), Doc(nlp.vocab, words=[]))
    # Only empty docs: no gold and no labels, nothing to learn.
    with pytest.raises(ValueError, match=r"\[E025\]"):
        nlp.initialize(lambda: [empty])
    nlp = _fresh(name)
    optimizer = nlp.initialize(lambda: [empty, good])
    losses = nlp.update([empty, good], sgd=optimizer)
    assert math.isfinite(losses[name])
    assert nlp.update([empty, empty], sgd=optimizer)[name] == 0.0
    assert len(nlp("").spans[nlp.get_pipe(name).key]) == 0


@pytest.mark.parametrize("name", component_params())
def test_label_only_in_dev(name):
    nlp = _fresh(name)
    train = [_example(nlp, ["IL-2", "gene", "expression"], [(0, 2, "DNA"), (0, 1, "protein")])]
    dev = [_example(nlp, ["Jurkat", "cells", "express", "IL-2"], [(0, 2, "cell_line"), (3, 4, "protein")])]
    optimizer = nlp.initialize(lambda: train)
    assert "cell_line" not in nlp.get_pipe(name).labels
    # Evaluation: the unseen label is scored as missed (recall 0), not an error.
    scores = nlp.evaluate(dev)
    per_type = scores.get("spans_sc_per_type") or scores.get("ents_per_type")
    assert per_type["cell_line"]["r"] == 0.0
    # Training on it is an error that names the label and the fix.
    with pytest.raises(ValueError, match=r"\[E003\] Gold span label 'cell_line'"):
        nlp.update(dev, sgd=optimizer)


@pytest.mark.parametrize("name", component_params())
def test_span_across_sentence_boundary_is_learned(name):
    nlp = _fresh(name)
    words = ["IL-2", "gene", ".", "Expression", "rises", "."]
    # "gene . Expression" crosses the sentence boundary before "Expression":
    # the components do not use sentences, so it is an ordinary gold span.
    example = _example(nlp, words, [(1, 4, "DNA")], sent_starts=[1, 0, 0, 1, 0, 0])
    assert example.reference[1].sent != example.reference[3].sent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer = nlp.initialize(lambda: [example])
    pipe = nlp.get_pipe(name)
    assert [(s.start, s.end, s.label_) for s in pipe._gold_spans(example)] == [(1, 4, "DNA")]
    assert math.isfinite(nlp.update([example], sgd=optimizer)[name])


EDGE_KINDS = ["control", "ansi", "c0_c1_controls", "zero_width", "rtl_marks", "whitespace_tokens"]


def _every_span(docs, max_width: int = 4):
    """What a decoder that accepts every cell returns: all spans up to max_width."""
    from spacy_globalner.decoding import SpanArrays

    found = []
    for doc in docs:
        starts, ends = numpy.triu_indices(len(doc) + 1, k=1)
        keep = (ends - starts) <= max_width
        starts, ends = starts[keep], ends[keep]
        found.append(SpanArrays(starts, ends, numpy.zeros_like(starts), numpy.ones(len(starts), "f")))
    return found


@pytest.mark.parametrize("kind", EDGE_KINDS)
def test_no_entity_edges_on_invisible_tokens(nlp, kind):
    """Whatever the decoder proposes, no span written starts or ends on a
    whitespace or control token; spans between them are kept."""
    name = nlp.pipe_names[-1]
    pipe = nlp.get_pipe(name)
    doc = nlp.make_doc(MESSY_TEXTS[kind])
    scores = pipe.predict([doc])
    decode = pipe._decode_at
    pipe._decode_at = lambda docs, scores, thresholds: _every_span(docs)
    try:
        pipe.set_annotations([doc], scores)
    finally:
        pipe._decode_at = decode
    check_doc(doc, pipe.key)
    proposed = _every_span([doc])[0]
    allowed = {
        (start, end) for start, end in zip(proposed.starts.tolist(), proposed.ends.tolist())
        if _clean_edges(doc[start:end])
    }
    assert allowed, "the text has clean tokens"
    assert {(s.start, s.end) for s in doc.spans[pipe.key]} == allowed


def test_global_pointer_low_threshold_skips_invisible_edges():
    """The real decoder at a threshold that accepts every cell."""
    nlp = spacy.load(trained_dir("global_pointer"))
    pipe = nlp.get_pipe("global_pointer")
    pipe.cfg["threshold"] = 0.0
    for kind in EDGE_KINDS:
        doc = nlp(MESSY_TEXTS[kind])
        assert len(doc.spans[pipe.key]) > 0
        check_doc(doc, pipe.key)


@pytest.mark.parametrize("name", component_params())
def test_gold_spans_trimmed_of_invisible_edges(name):
    """Training targets: a gold span with whitespace or control tokens at its
    edges is learned without them; one made of them only is left out."""
    nlp = _fresh(name)
    text = "IL-2 \x00\x07\x1b[31m gene \u200b expression \t in T cells ."
    predicted = nlp.make_doc(text)
    words = [t.text for t in predicted]
    assert words[:4] == ["IL-2", "\x00\x07\x1b[31", "m", "gene"], words
    reference = Doc(nlp.vocab, words=words, spaces=[bool(t.whitespace_) for t in predicted])
    # "\u200b" token and "\t" token (whitespace), as spaCy tokenizes them
    zw, tab = words.index("\u200b"), words.index("\t ")
    reference.spans["sc"] = [
        Span(reference, 0, 2, label="DNA"),        # ends on the ANSI escape -> IL-2
        Span(reference, 1, 4, label="DNA"),        # starts on it -> m gene
        Span(reference, zw, tab + 1, label="DNA"),  # \u200b expression \t -> expression
        Span(reference, 1, 2, label="protein"),    # the escape alone -> left out
        Span(reference, tab + 1, tab + 4, label="cell_type"),  # clean: kept
    ]
    example = Example(predicted, reference)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W100: lcrf_ner learns the outer layer only
        optimizer = nlp.initialize(lambda: [example])
    pipe = nlp.get_pipe(name)
    assert [(s.text, s.label_) for s in pipe._gold_spans(example)] == [
        ("IL-2", "DNA"), ("m gene", "DNA"), ("expression", "DNA"), ("in T cells", "cell_type"),
    ]
    assert math.isfinite(nlp.update([example], sgd=optimizer)[name])


@pytest.mark.parametrize(
    "text", [t for k, t in MESSY_TEXTS.items() if k != "long_doc"] + ["IL-2  gene   expression ."]
)
def test_edge_masks_match_characters(text):
    """The per-token masks (a fast path for printable text, code points
    otherwise) agree with the characters of each token."""
    from spacy_globalner.pipeline.edges import edge_masks

    doc = spacy.blank("en")(text)
    can_start, can_end = edge_masks(doc)
    for token, start, end in zip(doc, can_start.tolist(), can_end.tolist()):
        control = any(unicodedata.category(c) == "Cc" for c in token.text)
        assert start == (not control and not _invisible(token.text[0])), repr(token.text)
        assert end == (not control and not _invisible(token.text[-1])), repr(token.text)


@pytest.mark.parametrize(
    "text", [t for k, t in MESSY_TEXTS.items() if k != "long_doc" and t] + ["IL-2  gene   expression ."]
)
def test_decoded_spans_filtered_as_the_masks_say(text):
    """Decoded spans are filtered as the per-doc masks of the gold spans say,
    on both paths: more spans than tokens (the masks) and a few spans (only
    their edge tokens are looked at)."""
    from spacy_globalner.decoding import SpanArrays
    from spacy_globalner.pipeline.edges import edge_masks, filter_span_arrays

    doc = spacy.blank("en")(text)
    starts, last = numpy.triu_indices(len(doc))
    can_start, can_end = edge_masks(doc)
    expected = (can_start[starts] & can_end[last]).tolist()
    assert not all(expected) or (can_start.all() and can_end.all())

    def kept(index):
        found = SpanArrays(starts[index], last[index] + 1, numpy.zeros_like(starts[index]),
                           numpy.ones(len(starts[index]), dtype="float32"))
        filtered = filter_span_arrays(doc, found)
        return set(zip(filtered.starts.tolist(), filtered.ends.tolist()))

    everything = kept(numpy.tile(numpy.arange(len(starts)), 2))  # more spans than tokens
    assert everything == {(s, e + 1) for s, e, ok in zip(starts.tolist(), last.tolist(), expected) if ok}
    one_at_a_time = set().union(*(kept(numpy.asarray([i])) for i in range(len(starts))))
    assert one_at_a_time == everything
