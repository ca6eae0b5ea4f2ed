"""crener predicts on the band of its grid where spans as long as its longest
gold span lie: it learns that width at initialize, saves it, and finds the
same spans with the same scores as the whole grid among those it can hold,
on short docs and on windows of a long doc."""
import numpy
import spacy
from spacy.tokens import Doc

from tests.helpers.crener import SMALL_MODEL, TRAIN_DATA, example_of, train

LONGEST = 5  # "NF kappa B binding sites", DNA


def scored_spans(doc, longest=None):
    return [
        (span.start, span.end, span.label_, round(float(score), 5))
        for span, score in zip(doc.spans["sc"], doc.spans["sc"].attrs["scores"])
        if longest is None or len(span) <= longest
    ]


def briefly_trained():
    nlp = spacy.blank("en")
    config = {"model": SMALL_MODEL, "max_candidates": 0, "max_grid_length": 32, "unsegmented_window": 24}
    # Barely trained, with a low threshold: many spans of every width come out.
    pipe = nlp.add_pipe("crener", config={**config, "threshold": 0.1})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    train(nlp, examples, n_updates=3)
    return nlp, pipe


def test_band_finds_the_whole_grids_spans_it_can_hold(tmp_path):
    nlp, pipe = briefly_trained()
    assert pipe.cfg["max_span_width"] == LONGEST
    rng = numpy.random.default_rng(0)
    words = [text.split() for text, _ in TRAIN_DATA]
    vocabulary = sorted({word for sentence in words for word in sentence})
    docs = [Doc(nlp.vocab, words=sentence) for sentence in words]
    docs.append(Doc(nlp.vocab, words=[str(word) for word in rng.choice(vocabulary, size=90)]))  # windows of 24
    grids, windows = pipe.predict(docs)
    assert len(windows) > 4
    # The windows of 24 tokens as bands; a grid is whole only where shorter.
    width = 2 * LONGEST - 1
    assert all(grid.shape[1] == width or grid.shape[:2] == (len(grid), len(grid)) < (width, width) for grid in grids)
    assert [grid.shape[1] for grid in grids[2:]] == [width] * (len(grids) - 2)
    banded = [scored_spans(doc) for doc in nlp.pipe([doc.copy() for doc in docs])]
    pipe.max_span_width = None
    assert pipe.predict(docs[:1])[0][0].shape[:2] == (len(docs[0]), len(docs[0]))
    whole = [scored_spans(doc) for doc in nlp.pipe([doc.copy() for doc in docs])]
    assert banded == [
        [span for span in doc if span[1] - span[0] <= LONGEST] for doc in whole
    ]
    assert sum(len(doc) for doc in banded) > 10
    assert any(span[1] - span[0] > LONGEST for doc in whole for span in doc)
    pipe.max_span_width = LONGEST
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert loaded.get_pipe("crener").cfg["max_span_width"] == LONGEST
    assert [scored_spans(doc) for doc in loaded.pipe([doc.copy() for doc in docs])] == banded
