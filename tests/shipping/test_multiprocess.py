"""nlp.pipe with n_process=2 predicts what one process does, for every component,
and the pipes survive pickling (what spawn-started workers and Ray rely on)."""
import json
import pickle
import subprocess
import sys

import pytest
import spacy

from tests.helpers.trained_pipelines import (
    REPO_ROOT, component_params, one_torch_thread, predictions, sample_texts, trained_dir,
)


@pytest.mark.parametrize("name", component_params())
def test_pipe_n_process_matches_single_process(name):
    nlp = spacy.load(trained_dir(name))
    texts = sample_texts(24)
    with one_torch_thread():
        single = predictions(nlp.pipe(texts, batch_size=5))
        assert any(spans for _, spans, _ in single), "the small model predicts nothing"
        # fork start method (Linux default), after torch has run in the parent
        multi = predictions(nlp.pipe(texts, batch_size=5, n_process=2))
    assert multi == single


@pytest.mark.parametrize("name", component_params())
def test_pipe_and_pipeline_pickle(name):
    nlp = spacy.load(trained_dir(name))
    texts = sample_texts(10)
    with one_torch_thread():
        expected = predictions(nlp.pipe(texts))
        pipe = pickle.loads(pickle.dumps(nlp.get_pipe(name)))
        assert pipe.cfg == nlp.get_pipe(name).cfg
        assert predictions(pipe.pipe(nlp.make_doc(t) for t in texts)) == expected
        nlp2 = pickle.loads(pickle.dumps(nlp))
        assert predictions(nlp2.pipe(texts)) == expected


SPAWN_SCRIPT = """
import json, multiprocessing, sys
import spacy
if __name__ == "__main__":
    multiprocessing.set_start_method("spawn", force=True)
    nlp = spacy.load(sys.argv[1])
    texts = json.loads(sys.argv[2])
    out = []
    for doc in nlp.pipe(texts, batch_size=3, n_process=2):
        out.append([[s.start, s.end, s.label_] for s in doc.spans[sys.argv[3]]])
    print(json.dumps(out))
"""


@pytest.mark.slow
def test_pipe_n_process_spawn(tmp_path):
    """spawn (macOS and Windows default) pickles the pipeline into fresh workers."""
    name = "global_pointer"
    nlp = spacy.load(trained_dir(name))
    texts = sample_texts(9)
    key = nlp.get_pipe(name).key
    expected = [[[s.start, s.end, s.label_] for s in doc.spans[key]] for doc in nlp.pipe(texts)]
    script = tmp_path / "spawn.py"
    script.write_text(SPAWN_SCRIPT, encoding="utf8")
    result = subprocess.run(
        [sys.executable, str(script), str(trained_dir(name)), json.dumps(texts), key],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == expected
