"""python -m spacy_globalner.corpora convert INPUT OUTPUT --format FORMAT

The older name of `spacy globalner convert`: the same command, options and errors.
"""
import sys
from typing import List, Optional

from ..cli._app import run_alias
from ..cli.convert import convert_cli, print_stats  # noqa: F401  (print_stats: the old import)

PROG = "python -m spacy_globalner.corpora"


def main(argv: Optional[List[str]] = None) -> int:
    return run_alias(PROG, [convert_cli], argv)


if __name__ == "__main__":
    sys.exit(main())
