"""spaCy's commands as a user types them, `python -m spacy ...`, from tests.

A command line runs either in a subprocess with the user's environment, or in
this process through spaCy's own Typer app, which parses the same command
line and runs the same code: a test that repeats one command over many
configs runs one case in a subprocess and the others in this process, so
the interpreter's start-up (spaCy, Thinc and torch imports) is paid once.
"""
import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import pytest
import torch
from spacy.cli import app
from spacy.cli._util import COMMAND
from spacy.util import registry
from typer.testing import CliRunner


def user_env() -> Dict[str, str]:
    """The environment of the test run without the *_NUM_THREADS variables
    that a test runner may set and a user does not."""
    return {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}


def run_spacy(args: Sequence[str], cwd: Optional[Path] = None, timeout: int = 600) -> Tuple[int, str]:
    """`python -m spacy ARGS` in a subprocess, as a user runs it.

    RETURNS (Tuple[int, str]): The exit status and what it printed (stdout, then stderr).
    """
    done = subprocess.run([sys.executable, "-m", "spacy", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=user_env(), cwd=cwd)
    return done.returncode, done.stdout + done.stderr


@contextlib.contextmanager
def working_dir(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def invoke_spacy(args: Sequence[str], cwd: Optional[Path] = None) -> Tuple[int, str]:
    """`python -m spacy ARGS` in this process: the entry points of spacy_cli
    loaded first as `python -m spacy` loads them, then spaCy's Typer app.
    torch's threads, which the globalner commands set, are restored after. An
    exception other than an exit, which a user would see as a traceback, is
    raised.

    RETURNS (Tuple[int, str]): The exit status and what it printed.
    """
    registry.cli.get_all()
    threads = torch.get_num_threads()
    try:
        with working_dir(cwd or Path.cwd()):
            result = CliRunner().invoke(app, [str(arg) for arg in args], prog_name=COMMAND)
    finally:
        torch.set_num_threads(threads)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def one_in_a_subprocess(values: Iterable, ids: Iterable[str]) -> List:
    """pytest params (value, run) for one command over many values: the
    first case runs it with run_spacy, the others with invoke_spacy."""
    return [
        pytest.param(value, run_spacy if i == 0 else invoke_spacy,
                     id=f"{id_}-{'subprocess' if i == 0 else 'in-process'}")
        for i, (value, id_) in enumerate(zip(values, ids))
    ]
