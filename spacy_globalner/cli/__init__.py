"""`spacy globalner ...`: this package's commands under spaCy's CLI.

setup.cfg publishes `globalner_cli` in the `spacy_cli` entry-point group;
spaCy's `setup_cli` loads every entry point of that group before it parses the
command line, and importing this module adds the group to spaCy's `app`.
"""
from spacy.cli._util import app

from ._app import globalner_cli
from .annotate import annotate_cli
from .calibrate import calibrate_cli
from .convert import convert_cli
from .stats import stats_cli
from .tune import tune_cli

app.add_typer(globalner_cli, name="globalner")

__all__ = ["annotate_cli", "calibrate_cli", "convert_cli", "globalner_cli", "stats_cli", "tune_cli"]
