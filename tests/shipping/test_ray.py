"""ray_annotate on a local Ray instance writes what the nlp.pipe path writes,
also when a worker is killed mid-job."""
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import spacy

from tests.helpers.trained_pipelines import records_equal, sample_texts, trained_dir

ray = pytest.importorskip("ray", reason="the optional `ray` extra is not installed")
pytest.importorskip("pyarrow")

from spacy_globalner.scale import annotate, read_records, read_texts, write_jsonl  # noqa: E402
from spacy_globalner.scale.ray_annotate import ray_annotate  # noqa: E402

N_KILL_DOCS = 2000


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
    # A loaded pipeline, shipped as bytes to one worker; Parquet written by the worker.
    parquet = tmp_path / "ray.parquet"
    assert ray_annotate(nlp, corpus, parquet, num_workers=1, batch_size=7) == len(expected)
    got = sorted(read_records(parquet), key=lambda r: int(r["id"][1:]))
    records_equal(got, expected)


def test_ray_annotate_rejects_bad_options(tmp_path):
    with pytest.raises(ValueError, match=r"\[E402\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.csv", output_format="csv")
    with pytest.raises(ValueError, match=r"\[E403\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.jsonl", num_workers=0)
    with pytest.raises(ValueError, match=r"\[E400\]"):
        ray_annotate("x", tmp_path / "in.jsonl", tmp_path / "out.jsonl")


def ray_worker_pids():
    """The processes of Ray Data's map actors, found as an operator would find
    them (`ps`): Ray names an actor's process after its class."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if proc.name.isdigit() and cmdline.startswith(b"ray::") and b"MapWorker" in cmdline:
            pids.append(int(proc.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the worker processes in /proc")
def test_killed_ray_worker_loses_and_repeats_nothing(local_ray, tmp_path):
    """One of two pipeline workers is SIGKILLed mid-job: Ray Data restarts the
    actor and retries its batches, and the output holds each record once, in order."""
    model = trained_dir("lcrf_ner")
    texts = sample_texts(40)
    corpus = tmp_path / "corpus.jsonl"
    write_jsonl(corpus, ({"id": f"d{i}", "text": texts[i % len(texts)]} for i in range(N_KILL_DOCS)))
    out = tmp_path / "ray.jsonl"
    killed = []

    def kill_one_worker():
        # Once the driver has written the first records: both workers are busy.
        while not killed and not done.is_set():
            pids = ray_worker_pids()
            if len(pids) == 2 and out.exists() and out.stat().st_size > 0:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.01)

    done = threading.Event()
    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    try:
        count = ray_annotate(str(model), corpus, out, num_workers=2, batch_size=16)
    finally:
        done.set()
        killer.join(timeout=10)
    assert killed, "the job ended before a worker could be killed"
    assert count == N_KILL_DOCS
    got = read_records(out)
    assert [r["id"] for r in got] == [f"d{i}" for i in range(N_KILL_DOCS)]
    # the corpus repeats 40 texts; a doc's answer does not depend on its batch
    by_text = {record["text"]: record for record in annotate(spacy.load(model), [(None, t) for t in texts])}
    records_equal(got, [{**by_text[texts[i % len(texts)]], "id": f"d{i}"} for i in range(N_KILL_DOCS)])


def test_ray_annotate_reports_a_malformed_line_by_number(tmp_path):
    """Ray's own reader fails on it with a traceback that names no line."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "IL-2"}\n{"text": "unterminated}\n{"text": "NF-kappa B"}\n', encoding="utf8")
    with pytest.raises(ValueError, match=r"\[E501\] .*line 2:"):
        ray_annotate("x", corpus, tmp_path / "out.jsonl")
