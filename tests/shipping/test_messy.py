"""Messy input: odd texts at prediction time, and training data with misaligned
offsets, empty docs, labels seen only in dev and spans across sentences. Each
case either works or fails with a catalogue error; nothing is dropped without
a warning that counts it.
"""
import math
import warnings

import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from tests.helpers.trained_pipelines import component_params, one_torch_thread, trained_dir

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
}


@pytest.fixture(scope="module", params=component_params())
def nlp(request):
    return spacy.load(trained_dir(request.param))


def check_doc(doc: Doc, key: str) -> None:
    group = doc.spans[key]
    scores = group.attrs["scores"]
    assert len(scores) == len(group)
    assert all(math.isfinite(float(score)) for score in scores)
    for span in group:
        assert 0 <= span.start < span.end <= len(doc)
    # doc.ents is flat by construction; its spans are among doc.spans' ones
    assert {(e.start, e.end, e.label_) for e in doc.ents} <= {
        (s.start, s.end, s.label_) for s in group
    }


@pytest.mark.parametrize("kind", list(MESSY_TEXTS))
def test_messy_texts_predict(nlp, kind):
    assert len(LONG_DOC) > 50_000
    name = nlp.pipe_names[-1]
    key = nlp.get_pipe(name).key
    with one_torch_thread(), warnings.catch_warnings():
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
    # Only empty docs: nothing to learn labels from -> W003, then E001.
    with pytest.warns(UserWarning, match=r"\[W003\]"), pytest.raises(ValueError, match=r"\[E001\]"):
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
