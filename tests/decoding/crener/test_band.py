"""Decoding a grid's band finds what decoding the whole grid finds among the
entities the band can hold, with the same order and scores: on gold grids,
on hand-made paths through distant links, and on random margins."""
import numpy
import pytest

from spacy_globalner.decoding.crener.band import decode_band
from spacy_globalner.decoding.crener.decode import decode_grid, decode_windows
from spacy_globalner.decoding.crener.tags import NNC, PNC, encode_grid_entities, n_grid_tags
from spacy_globalner.decoding.crener.windows import plan_windows


def band_of(grid: numpy.ndarray, band: int, fill: float = numpy.nan) -> numpy.ndarray:
    """The band form of a whole grid (n, n, c) -> (n, 2 * band + 1, c),
    `fill` where a band cell lies outside the grid."""
    n = grid.shape[0]
    columns = numpy.arange(n)[:, None] + numpy.arange(-band, band + 1)[None, :]
    inside = (columns >= 0) & (columns < n)
    banded = grid[numpy.arange(n)[:, None], numpy.clip(columns, 0, n - 1)]
    banded[~inside] = fill
    return banded


def as_tuples(spans, longest=None):
    keep = [
        (int(s), int(e), int(l), round(float(c), 6))
        for s, e, l, c in zip(spans.starts, spans.ends, spans.label_ids, spans.scores)
    ]
    return [span for span in keep if longest is None or span[1] - span[0] <= longest]


@pytest.mark.parametrize(
    "length,entities,band",
    [
        (6, [(0, 1, 0)], 0),  # single token at the left edge, diagonal only
        (6, [(5, 6, 1)], 2),  # single token at the right edge
        (6, [(0, 6, 0)], 5),  # the whole doc, exactly as wide as the band holds
        (6, [(0, 6, 0), (1, 3, 1)], 4),  # one entity too wide for the band
        (8, [(1, 5, 0), (1, 2, 1), (3, 5, 1), (4, 5, 0)], 3),  # nested
        (6, [(1, 3, 0), (1, 3, 1), (0, 3, 0), (2, 5, 1)], 2),  # two labels, crossing
        (1, [(0, 1, 2)], 3),  # a band wider than the doc
    ],
)
def test_band_decodes_the_gold_it_can_hold(length, entities, band):
    entities = numpy.asarray(entities, dtype="int64").reshape(-1, 3)
    tags = encode_grid_entities(length, entities[:, 0], entities[:, 1], entities[:, 2], 3)
    margins = numpy.where(tags, 5.0, -5.0)
    found = as_tuples(decode_band(band_of(margins, band), 3))
    assert found == as_tuples(decode_grid(margins, 3), longest=band + 1)
    assert {span[:3] for span in found} == {tuple(e) for e in entities.tolist() if e[1] - e[0] <= band + 1}


def test_band_follows_links_that_skip_tokens():
    # 0 -> 2 -> 3 reaches 3 without a link at (0, 1) or (1, 2); 5 is closed from
    # 3 but not reached (no link into 4 or 5).
    margins = numpy.full((6, 6, n_grid_tags(1)), -5.0)
    for i, j in [(0, 2), (2, 3)]:
        margins[i, j, NNC] = margins[j, i, PNC] = 5.0
    for head, tail in [(0, 3), (3, 5), (0, 2)]:
        margins[head, tail, 2] = margins[tail, head, 3] = 5.0
    found = as_tuples(decode_band(band_of(margins, 3), 1))
    assert [span[:3] for span in found] == [(0, 3, 0), (0, 4, 0)]
    assert found == as_tuples(decode_grid(margins, 1))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("band", [1, 4, 9])
def test_band_matches_the_whole_grid_on_random_margins(seed, band):
    rng = numpy.random.default_rng(seed)
    n, n_labels = int(rng.integers(1, 30)), 3
    # Dense enough that long paths through distant links close entities.
    margins = rng.normal(-0.6, 1.0, size=(n, n, n_grid_tags(n_labels)))
    # the margins -0.3..0.3 and 0.1 this test was written with, as probabilities
    thresholds = rng.uniform(0.4256, 0.5744, size=n_labels) if seed % 2 else None
    whole = as_tuples(decode_grid(margins, n_labels, 0.525, thresholds), longest=band + 1)
    banded = as_tuples(decode_band(band_of(margins, band, fill=9.0), n_labels, 0.525, thresholds))
    assert banded == whole
    if n > 8 and band >= 4:
        assert len(whole) > 0


def test_decode_windows_reads_bands_and_short_whole_grids():
    rng = numpy.random.default_rng(0)
    # Windows of 8 (given as bands of 3: 7 columns) and a doc of 5 (as its
    # whole grid, shorter than a band), whose longer spans are left out.
    windows = plan_windows([12, 5], [None, None], 8, 8)
    grids = []
    for _, start, end, _, _ in windows.tolist():
        grids.append(rng.normal(-0.3, 1.0, size=(end - start, end - start, 1 + n_grid_tags(2))))
    whole, _ = decode_windows(grids, windows, 2, 2)
    assert any(span[1] - span[0] > 4 for doc in whole for span in as_tuples(doc))
    mixed = [band_of(grid, 3, fill=0.0) if len(grid) > 7 else grid for grid in grids]
    banded, _ = decode_windows(mixed, windows, 2, 2, band=3)
    assert [as_tuples(doc) for doc in banded] == [as_tuples(doc, longest=4) for doc in whole]
    with pytest.raises(ValueError, match="E234"):
        decode_windows([band_of(grid, 3) for grid in grids], windows, 2, 2, band=2)
