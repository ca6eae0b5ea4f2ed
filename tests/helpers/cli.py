"""spaCy's CLI run inside the test process, for the cases of a matrix whose
one case a test file runs as the user types it (`python -m spacy ...`, a
process of its own): each process start imports spaCy, Thinc and torch anew."""
from typing import Sequence, Tuple

import torch
from spacy.cli import app
from spacy.cli._util import COMMAND
from spacy.util import registry
from typer.testing import CliRunner


def invoke_spacy(args: Sequence[object]) -> Tuple[int, str]:
    """`python -m spacy *args` in this process: spaCy's app, with the commands
    of every spacy_cli entry point loaded first as spaCy's setup_cli does.
    torch's threads, which the globalner commands set, are restored after.

    RETURNS (Tuple[int, str]): The exit code and what the command printed,
        whitespace runs as one space. An exception other than an exit, which
        a user would see as a traceback, is raised.
    """
    registry.cli.get_all()
    threads = torch.get_num_threads()
    try:
        result = CliRunner().invoke(app, [str(arg) for arg in args], prog_name=COMMAND)
    finally:
        torch.set_num_threads(threads)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, " ".join(result.output.split())
