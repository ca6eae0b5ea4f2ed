"""python -m spacy_globalner.scale annotate MODEL INPUT OUTPUT [options]

The older name of `spacy globalner annotate`: the same command, options and errors.
"""
import sys
from typing import List, Optional

from ..cli._app import run_alias
from ..cli.annotate import annotate_cli

PROG = "python -m spacy_globalner.scale"


def main(argv: Optional[List[str]] = None) -> int:
    return run_alias(PROG, [annotate_cli], argv)


if __name__ == "__main__":
    sys.exit(main())
