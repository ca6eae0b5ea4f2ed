import numpy

from spacy_globalner.decoding.lcrf_ner.tag_runs import fill_runs, int64_arrays, linked_runs, runs_to_spans


def test_fill_runs_writes_each_run_and_skips_empty_ones():
    tags = numpy.full((8,), 9, dtype="int64")
    fill_runs(tags, numpy.array([1, 4, 6]), numpy.array([2, 0, 2]), numpy.array([3, 5, 7]))
    assert tags.tolist() == [9, 3, 3, 9, 9, 9, 7, 7]


def test_linked_runs_and_runs_to_spans_read_runs_per_doc():
    in_entity = numpy.array([[1, 1, 0, 1], [1, 1, 1, 0]], dtype=bool)
    opens = numpy.array([[1, 0, 0, 1], [1, 0, 1, 0]], dtype=bool)
    types = numpy.array([[2, 2, 0, 1], [0, 0, 1, 0]])
    open_flat, run_sizes = linked_runs(opens, in_entity)
    assert open_flat.tolist() == [0, 3, 4, 6]
    assert run_sizes.tolist() == [2, 1, 2, 1]
    doc_ids, starts, ends, label_ids = runs_to_spans(open_flat, run_sizes, types)
    assert doc_ids.tolist() == [0, 0, 1, 1]
    assert starts.tolist() == [0, 3, 0, 2]
    assert ends.tolist() == [2, 4, 2, 3]
    assert label_ids.tolist() == [2, 1, 0, 1]


def test_runs_to_spans_of_empty_docs():
    types = numpy.zeros((2, 0), dtype="int64")
    empty = numpy.zeros((0,), dtype="int64")
    doc_ids, starts, ends, label_ids = runs_to_spans(empty, empty, types)
    assert doc_ids.size == starts.size == ends.size == label_ids.size == 0


def test_int64_arrays():
    tags, lengths = int64_arrays([[1, 2]], numpy.asarray([2], dtype="int32"))
    assert tags.dtype == lengths.dtype == numpy.int64 and tags.shape == (1, 2)
