"""ray_annotate on a local Ray instance writes what the nlp.pipe path writes."""
import pytest
import spacy

from tests.helpers.trained_pipelines import records_equal, sample_texts, trained_dir

ray = pytest.importorskip("ray", reason="the optional `ray` extra is not installed")
pytest.importorskip("pyarrow")

from spacy_globalner.scale import annotate, read_records, read_texts, write_jsonl  # noqa: E402
from spacy_globalner.scale.ray_annotate import ray_annotate  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    # Logical CPUs: 2 actors plus the read tasks (with 2, the actors take all).
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray") / "corpus.jsonl"
    write_jsonl(path, ({"id": f"d{i}", "text": t} for i, t in enumerate(sample_texts(30))))
    return path


@pytest.mark.slow
def test_ray_annotate_matches_pipe(local_ray, corpus, tmp_path):
    model = trained_dir("global_pointer")
    nlp = spacy.load(model)
    expected = list(annotate(nlp, read_texts(corpus), batch_size=7))
    out = tmp_path / "ray.jsonl"
    # A path: each of the 2 workers loads its own pipeline; batches of 7 docs.
    assert ray_annotate(str(model), corpus, out, num_workers=2, batch_size=7) == len(expected)
    records_equal(read_records(out), expected)
    # A loaded pipeline, shipped as bytes; Parquet written by the workers.
    parquet = tmp_path / "ray.parquet"
    assert ray_annotate(nlp, corpus, parquet, num_workers=2, batch_size=7) == len(expected)
    got = sorted(read_records(parquet), key=lambda r: int(r["id"][1:]))
    records_equal(got, expected)


def test_ray_annotate_rejects_bad_options(tmp_path):
    with pytest.raises(ValueError, match=r"\[E402\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.csv", output_format="csv")
    with pytest.raises(ValueError, match=r"\[E403\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.jsonl", num_workers=0)
    with pytest.raises(ValueError, match=r"\[E400\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.jsonl")
