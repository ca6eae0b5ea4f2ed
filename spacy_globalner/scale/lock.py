"""One job per output file: OUTPUT.lock, created exclusively next to the output.

Two runs writing one output (and one progress file) would interleave records and
checkpoints, and a resume would trust neither. The lock file holds the host and
process id of the run that owns the output; it is removed when that run ends,
however it ends short of being killed. A lock left by a killed run on this host
(its process is gone) is taken over; one from another host cannot be checked
from here, so it holds until removed.
"""
import contextlib
import os
import socket
from pathlib import Path
from typing import Iterator, Optional, Tuple

from ..errors import Errors

LOCK_SUFFIX = ".lock"


def lock_path(output_path: Path) -> Path:
    """The lock file of an output: OUTPUT.lock next to it."""
    return output_path.with_name(output_path.name + LOCK_SUFFIX)


def _owner(path: Path) -> Optional[Tuple[str, int]]:
    """The host and pid a lock file names; None where it cannot be read."""
    try:
        host, pid = path.read_text(encoding="utf8").split()
        return host, int(pid)
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def output_lock(output_path: Path) -> Iterator[Path]:
    """Hold OUTPUT.lock while the block runs; raise E509 where a live run holds it.

    output_path (Path): The output file.
    RETURNS (Iterator[Path]): The lock file, removed when the block ends.
    """
    path = lock_path(output_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    me = f"{socket.gethostname()} {os.getpid()}\n"
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            owner = _owner(path)
            stale = owner is not None and owner[0] == socket.gethostname() and not _alive(owner[1])
            if not stale:
                who = "an unreadable owner" if owner is None else f"process {owner[1]} on {owner[0]}"
                raise ValueError(Errors.E509.format(output=output_path, lock=path, owner=who)) from None
            path.unlink(missing_ok=True)  # its run was killed: take it over
            continue
        with os.fdopen(fd, "w", encoding="utf8") as file_:
            file_.write(me)
        break
    else:
        raise ValueError(Errors.E509.format(output=output_path, lock=path, owner="another run"))
    try:
        yield path
    finally:
        if path.is_file() and path.read_text(encoding="utf8") == me:
            path.unlink()
