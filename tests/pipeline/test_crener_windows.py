"""crener on a doc of 2,000 tokens without sentence boundaries, cut into
overlapping windows: gold entities that cross a window edge are left out of
that window's loss (not trained as negatives), and entities at the edges of
the cores are recovered from the neighbouring window at predict time."""
import numpy
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_globalner.decoding.crener.decode import decode_grid_windows
from spacy_globalner.decoding.crener.tags import encode_grid_entities
from spacy_globalner.decoding.crener.windows import CORE_END, CORE_START, END, START
from spacy_globalner.ml.models.crener import plan_doc_windows
from tests.helpers.trained_pipelines import small_config

N_TOKENS = 2000
MAX_LENGTH = 64  # context 8 tokens either side of a core of 48


def long_doc(nlp) -> Doc:
    doc = Doc(nlp.vocab, words=[f"w{i}" for i in range(N_TOKENS)])
    assert not doc.has_annotation("SENT_START")
    return doc


def edge_entities(windows):
    """(start, end): per core boundary, an entity across it longer than the
    context, and one that starts in a core and ends past its window's end."""
    spans = []
    for row in windows[:-1]:
        core_end, end = int(row[CORE_END]), int(row[END])
        spans.append((core_end - 6, core_end + 6))  # across the core boundary
        spans.append((core_end - 2, end + 3))  # past this window's end
    return spans


def test_windows_of_a_long_doc_overlap():
    nlp = spacy.blank("en")
    windows = plan_doc_windows([long_doc(nlp)], MAX_LENGTH)
    assert len(windows) > 30
    assert (windows[1:, START] < windows[:-1, END]).all()
    assert (windows[1:, CORE_START] == windows[:-1, CORE_END]).all()


def test_edge_entities_recovered_from_overlapping_windows():
    """A perfect grid per window (every entity wholly inside it tagged) gives
    back every gold entity: none is lost at a window or core edge."""
    nlp = spacy.blank("en")
    windows = plan_doc_windows([long_doc(nlp)], MAX_LENGTH)
    gold = numpy.asarray(sorted(set(edge_entities(windows))), dtype="int64")
    grids = []
    for _, start, end, _, _ in windows.tolist():
        inside = gold[(gold[:, 0] >= start) & (gold[:, 1] <= end)] - start
        tags = encode_grid_entities(end - start, inside[:, 0], inside[:, 1], numpy.zeros(len(inside), "int64"), 1)
        grids.append(numpy.concatenate(
            (numpy.zeros(tags.shape[:2] + (1,), "float32"), numpy.where(tags, 3.0, -3.0).astype("float32")),
            axis=-1,
        ))
    (found,) = decode_grid_windows(grids, windows, 1, 1, 0.0)
    assert sorted(zip(found.starts.tolist(), found.ends.tolist())) == [tuple(s) for s in gold.tolist()]


def test_entities_crossing_a_window_edge_leave_its_loss():
    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={**small_config("crener"), "max_grid_length": MAX_LENGTH})
    pipe = nlp.get_pipe("crener")
    predicted = long_doc(nlp)
    reference = long_doc(nlp)
    windows = plan_doc_windows([predicted], MAX_LENGTH)
    # At window 0's core end: one entity inside window 0, one cut by its end.
    entities = edge_entities(windows)[:2]
    reference.spans["sc"] = [Span(reference, s, e, "protein") for s, e in entities]
    example = Example(predicted, reference)
    nlp.initialize(lambda: [example])
    gold, counted = pipe._gold_grids([example], windows)
    first_end = int(windows[0, END])
    # Window 0 sees entity (core_end - 2, end + 3) cut at its end: its links inside are not counted.
    start = entities[1][0]
    cells = numpy.arange(start, first_end - 1)
    uncounted = numpy.zeros((first_end, first_end), dtype=bool)
    uncounted[cells, cells + 1] = uncounted[cells + 1, cells] = True
    window0 = counted[: first_end * first_end].reshape(first_end, first_end)
    assert not window0[uncounted].any()
    assert window0[~uncounted].all()
    # ...and they get no gradient, while counted cells do.
    rng = numpy.random.RandomState(0)
    grids = [rng.randn(e - s, e - s, gold.shape[1] + 1).astype("float32") for _, s, e, _, _ in windows.tolist()]
    _, d_grids = pipe.get_loss([example], (grids, windows))
    assert (d_grids[0][uncounted] == 0).all()
    assert (d_grids[0][~uncounted] != 0).any(axis=-1).all()
