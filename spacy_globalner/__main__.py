"""python -m spacy_globalner calibrate MODEL DEV.spacy --output DIR [options]

The same command, options and errors as `spacy globalner calibrate`.
"""
import sys
from typing import List, Optional

from .cli._app import run_alias
from .cli.calibrate import calibrate_cli

PROG = "python -m spacy_globalner"


def main(argv: Optional[List[str]] = None) -> int:
    return run_alias(PROG, [calibrate_cli], argv)


if __name__ == "__main__":
    sys.exit(main())
