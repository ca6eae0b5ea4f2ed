"""crener on a doc of 2,000 tokens without sentence boundaries, cut into
overlapping windows: gold entities that cross a window edge are left out of
that window's loss (not trained as negatives), and entities at the edges of
the cores are recovered from the neighbouring window at predict time."""
import numpy
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_globalner.decoding.crener.tags import encode_grid_entities
from spacy_globalner.decoding.crener.windows import CORE_END, CORE_START, END, START
from spacy_globalner.ml.models.crener import plan_doc_windows
from tests.helpers.crener import SMALL_MODEL, TRAIN_DATA, decode_grid_windows, example_of, spans_of, train
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
    (found,) = decode_grid_windows(grids, windows, 1, 1, 0.5)
    assert sorted(zip(found.starts.tolist(), found.ends.tolist())) == [tuple(s) for s in gold.tolist()]


def window_grids(windows, gold, seed=0):
    """One logit grid per window, as a model blind past a window's edges
    would score it: every gold entity wholly inside the window tagged, and
    also the part inside it of each gold entity cut by one of its cut edges
    (a truncated entity the merge must drop where another window sees it
    whole). Margins are uneven (1 to 4 on, -4 to -1 off), not +-3."""
    rng = numpy.random.RandomState(seed)
    grids = []
    for _, start, end, core_start, core_end in windows.tolist():
        clipped = numpy.stack((numpy.maximum(gold[:, 0], start), numpy.minimum(gold[:, 1], end)), axis=1)
        inside = (gold[:, 0] >= start) & (gold[:, 1] <= end)
        cut = (clipped[:, 0] < clipped[:, 1]) & ~inside
        cut &= ((gold[:, 0] < start) & (core_start > start)) | ((gold[:, 1] > end) & (core_end < end))
        spans = numpy.concatenate((gold[inside], clipped[cut])) - start
        tags = encode_grid_entities(end - start, spans[:, 0], spans[:, 1], numpy.zeros(len(spans), "int64"), 1)
        margins = numpy.where(tags, rng.uniform(1.0, 4.0, tags.shape), rng.uniform(-4.0, -1.0, tags.shape))
        grids.append(numpy.concatenate((numpy.zeros(tags.shape[:2] + (1,)), margins), axis=-1).astype("float32"))
    return grids


def test_entity_covering_a_window_overlap_exactly_is_found():
    """[start of window B, end of window A) touches a cut edge in both
    windows and no window holds it whole: kept, even with a perfect grid."""
    nlp = spacy.blank("en")
    windows = plan_doc_windows([long_doc(nlp)], MAX_LENGTH)
    gold = numpy.asarray([(int(b[START]), int(a[END])) for a, b in zip(windows[:-1], windows[1:])], dtype="int64")
    assert (gold[:, 1] - gold[:, 0] == 2 * (MAX_LENGTH // 8)).all()
    (found,) = decode_grid_windows(window_grids(windows, gold), windows, 1, 1, 0.5)
    assert sorted(zip(found.starts.tolist(), found.ends.tolist())) == [tuple(s) for s in gold.tolist()]


def test_truncated_entities_at_cut_edges_are_dropped():
    """Each window also tags the cut-short part of the entities crossing its
    cut edges; the merge keeps every gold entity once and no truncated part,
    the exact overlap and an entity from B's start past A's end included."""
    nlp = spacy.blank("en")
    windows = plan_doc_windows([long_doc(nlp)], MAX_LENGTH)
    gold = set()
    for a, b in zip(windows[:-1].tolist(), windows[1:].tolist()):
        a_end, core_end, b_start = a[END], a[CORE_END], b[START]
        gold.update({
            (b_start, a_end),  # exactly the overlap
            (b_start, a_end + 10),  # from B's cut start past A's end: in B only
            (core_end - 6, core_end + 6),  # across the core boundary, whole in both
            (core_end - 2, a_end + 3),  # past A's end: cut short in A, whole in B
            (b_start - 3, b[CORE_START] + 2),  # before B's start: cut short in B, whole in A
        })
    gold = numpy.asarray(sorted(gold), dtype="int64")
    grids = window_grids(windows, gold, seed=1)
    (found,) = decode_grid_windows(grids, windows, 1, 1, 0.5)
    assert sorted(zip(found.starts.tolist(), found.ends.tolist())) == [tuple(s) for s in gold.tolist()]


def test_unsegmented_window_from_the_config(tmp_path):
    """unsegmented_window set through add_pipe: an 800-token doc without
    sentence boundaries gets overlapping windows of 40 tokens (not
    max_grid_length's 256) and still finds every repetition's entities;
    the setting is saved with the pipeline and plans the same windows after
    loading."""
    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={"model": SMALL_MODEL, "max_grid_length": 256, "unsegmented_window": 40})
    train(nlp, [example_of(nlp, text, spans) for text, spans in TRAIN_DATA])
    text = " ".join(["IL-2 expression requires activated T lymphocytes and IL-2"] * 100)
    _, windows = nlp.get_pipe("crener").predict([nlp.make_doc(text)])
    assert (windows[:, END] - windows[:, START]).max() == 40 and len(windows) == 27
    assert (windows[1:, START] < windows[:-1, END]).all()
    found = set(spans_of(nlp(text)))
    repeated = {(8 * k + 3, 8 * k + 6, "cell_type") for k in range(100)}
    repeated |= {(8 * k + 7, 8 * k + 8, "protein") for k in range(100)}
    assert repeated - found == set()
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert loaded.get_pipe("crener").cfg["unsegmented_window"] == 40
    _, loaded_windows = loaded.get_pipe("crener").predict([loaded.make_doc(text)])
    numpy.testing.assert_array_equal(loaded_windows, windows)
    assert set(spans_of(loaded(text))) == found


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
