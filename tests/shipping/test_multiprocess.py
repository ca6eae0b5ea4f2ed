"""nlp.pipe with n_process=2 predicts what one process does, for every component,
and the pipes survive pickling (what spawn-started workers and Ray rely on).

The multiprocess runs happen in a subprocess with the environment a user has: no
thread variables, torch's default threads, spaCy's default start method (fork on
Linux), and a timeout that turns a hang into a failure: forked workers can
wait forever in libgomp for the parent's OpenMP threads.
"""
import atexit
import functools
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Dict, List

import pytest
import spacy
from spacy.training import Example

from spacy_globalner.scale import doc_to_record, read_records
from tests.helpers.trained_pipelines import (
    COMPONENTS,
    REPO_ROOT,
    component_params,
    genia_docs,
    predictions,
    records_equal,
    sample_texts,
    trained_dir,
)

TIMEOUT_S = 300
# Thread settings a user does not have; the test machine's own are dropped.
THREAD_VARS = ("OMP_", "MKL_", "KMP_", "GOMP_", "OPENBLAS_", "NUMEXPR_", "VECLIB_", "TORCH_")


def user_env() -> Dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(THREAD_VARS)}


def run_as_user(args: List[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command as a user would; a hang (here: forked workers waiting
    forever) fails the test, and the whole process group is killed with it.
    """
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=REPO_ROOT, env=user_env(), start_new_session=True, **kwargs,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        command = " ".join(map(str, args))
        pytest.fail(f"{command[:300]} hung for {TIMEOUT_S}s:\n{err[-3000:]}")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


# Every component's pipeline in turn, in one process: a process start
# imports spaCy, Thinc and torch anew.
PIPE_SCRIPT = """
import json, sys
import spacy
from spacy_globalner.scale import doc_to_record
texts = json.loads(sys.argv[2])
def found(docs):
    # batched and unbatched matmuls differ in the last bits of a score
    return [[[s["key"], s["start"], s["end"], s["label"], None if s["score"] is None
              else round(s["score"], 4)] for s in r["spans"]] + r["ents"]
            for r in map(doc_to_record, docs)]
got = {}
for name, path in json.loads(sys.argv[1]).items():
    nlp = spacy.load(path)
    single = found(nlp.pipe(texts, batch_size=5))  # torch runs in the parent first
    multi = found(nlp.pipe(texts, batch_size=5, n_process=2))
    got[name] = {"single": single, "multi": multi}
print(json.dumps(got))
"""


@pytest.fixture(scope="module")
def piped(tmp_path_factory) -> Dict[str, Dict]:
    """{component: {"single": ..., "multi": ...}}: what nlp.pipe predicted
    in one process and with n_process=2, for each component's pipeline."""
    script = tmp_path_factory.mktemp("pipe") / "pipe.py"
    script.write_text(PIPE_SCRIPT, encoding="utf8")
    models = {name: str(trained_dir(name)) for name in COMPONENTS}
    result = run_as_user([sys.executable, str(script), json.dumps(models), json.dumps(sample_texts(24))])
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", component_params())
def test_pipe_n_process_matches_single_process(name, piped):
    got = piped[name]
    assert any(doc for doc in got["single"]), "the small model predicts nothing"
    assert got["multi"] == got["single"]


@functools.lru_cache(maxsize=None)
def default_size_dir(name: str) -> Path:
    """`name` with its default (shipped) sizes, initialized on a few GENIA docs.
    Loading weights this big runs torch's parallel copies in the parent, which is
    what made the annotate command's forked workers hang before they predicted.
    """
    nlp = spacy.blank("en")
    nlp.add_pipe(name)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W100: lcrf_ner learns the outer layer only
        nlp.initialize(lambda: examples)
    folder = tempfile.mkdtemp(prefix=f"shipping-default-{name}-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    nlp.to_disk(Path(folder) / "pipeline")
    return Path(folder) / "pipeline"


# spaCy's CLI as `python -m spacy` runs it, once per command line, in one process.
CLI_SCRIPT = """
import json, sys
from spacy.cli import app
from spacy.cli._util import COMMAND
from spacy.util import registry
from typer.main import get_command
registry.cli.get_all()
for args in json.loads(sys.argv[1]):
    try:
        get_command(app)(args, prog_name=COMMAND)
    except SystemExit as exit:
        if exit.code:
            raise
"""


def annotate_args(name: str, folder: Path, texts: List[str]) -> List[str]:
    """`spacy globalner annotate` of the texts with the default-size `name`,
    2 processes, into folder/out.jsonl."""
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf8")
    return ["globalner", "annotate", str(default_size_dir(name)), str(corpus), str(folder / "out.jsonl"),
            "--n-process", "2", "--batch-size", "5"]


@pytest.fixture(scope="module")
def annotated(tmp_path_factory) -> Dict[str, Path]:
    """{component: its annotate output}: the first component's command as the
    user types it, a process of its own; the others one after another in one
    process of their own."""
    texts = sample_texts(24)
    folders = {name: tmp_path_factory.mktemp(f"annotate-{name}") for name in COMPONENTS}
    first, *others = COMPONENTS
    result = run_as_user([sys.executable, "-m", "spacy", *annotate_args(first, folders[first], texts)])
    assert result.returncode == 0, result.stderr[-3000:]
    script = tmp_path_factory.mktemp("cli") / "cli.py"
    script.write_text(CLI_SCRIPT, encoding="utf8")
    commands = [annotate_args(name, folders[name], texts) for name in others]
    result = run_as_user([sys.executable, str(script), json.dumps(commands)])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {name: folder / "out.jsonl" for name, folder in folders.items()}


@pytest.mark.parametrize("name", component_params())
def test_annotate_command_n_process(name, annotated):
    texts = sample_texts(24)
    out = annotated[name]
    nlp = spacy.load(default_size_dir(name))
    records_equal(read_records(out), [doc_to_record(doc, doc_id=str(i)) for i, doc in enumerate(nlp.pipe(texts), 1)])


@pytest.mark.parametrize("name", component_params())
def test_pipe_and_pipeline_pickle(name):
    nlp = spacy.load(trained_dir(name))
    texts = sample_texts(10)
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
    result = run_as_user([sys.executable, str(script), str(trained_dir(name)), json.dumps(texts), key])
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == expected
