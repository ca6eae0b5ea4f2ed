"""The `spacy globalner` command group and the helpers its commands share.

Each command lives in a file of its own in this folder and registers itself on
`globalner_cli` with `@globalner_cli.command(...)`; cli/__init__.py imports
the files and hangs the group under spaCy's own `app`. A new command is one new
file plus one import line in __init__.py.
"""
from typing import Callable, List, Optional

import typer
from typer.main import get_command

NAME = "globalner"
HELP = """spacy-globalner commands: convert corpora, corpus statistics, calibrate thresholds,
annotate at scale.

DOCS: README.md and docs/ in the spacy-globalner repository
"""

globalner_cli = typer.Typer(name=NAME, help=HELP, no_args_is_help=True, rich_markup_mode=None)

# Short names for Typer's annotations, as spaCy's own CLI has them.
Arg = typer.Argument
Opt = typer.Option

# torch's threads in a command that runs a pipeline, unless --threads says
# otherwise. torch's default, one per core, makes these small models wait on
# each other's threads at every operation once the machine is busy with other
# work (docs/shipping.md#threads-set-one-torch-thread-on-a-cpu); more
# throughput comes from processes (--n-process), as in spaCy.
DEFAULT_THREADS = 1
THREADS_HELP = "torch threads of this process (0: torch's default, one per core)"


def use_torch_threads(threads: int) -> int:
    """Set this process's torch threads, before the pipeline runs.

    threads (int): The threads; 0 leaves torch's default.
    RETURNS (int): The threads torch uses now.
    """
    import torch

    if threads > 0:
        torch.set_num_threads(threads)
    return torch.get_num_threads()


def run_alias(prog_name: str, commands: List[Callable], argv: Optional[List[str]] = None) -> int:
    """Run some of the group's commands under a `python -m` name (as
    `python -m spacy_globalner calibrate ...`), with the same options, help and
    errors as under `spacy globalner ...`.

    prog_name (str): The name printed in usage lines.
    commands (List[Callable]): The Typer command functions the alias offers.
    argv (Optional[List[str]]): The arguments (None: sys.argv[1:]).
    RETURNS (int): The exit code.
    """
    alias = typer.Typer(
        name=prog_name, no_args_is_help=True, add_completion=False, rich_markup_mode=None
    )
    # A callback keeps the subcommand in the command line even for one command.
    alias.callback()(lambda: None)
    for command in commands:
        info = next(c for c in globalner_cli.registered_commands if c.callback is command)
        alias.command(info.name)(command)
    try:
        get_command(alias).main(args=argv, prog_name=prog_name, standalone_mode=True)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return 0
