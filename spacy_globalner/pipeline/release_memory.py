"""Hand the memory a training update freed back to the system.

On Linux, glibc's allocator keeps the memory torch frees inside its heap. As
batches of other shapes come and go, the free pieces fragment and the heap
grows: a transformer run's resident memory climbs for as long as it trains,
far above what one update needs (docs/shipping.md, "Memory"). malloc_trim(0)
returns the free pages to the system. Where the C library has no malloc_trim
(macOS, Windows, musl) the callback does nothing.
"""
import ctypes
from functools import lru_cache
from typing import Any, Callable, Dict, Optional

from spacy.language import Language

from ..errors import Errors
from ..validation import check_int


@lru_cache(maxsize=1)
def _malloc_trim() -> Optional[Callable[[int], int]]:
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # no C library to load by name (Windows)
        return None


def release_freed_memory() -> bool:
    """Give the allocator's free pages back to the system; False where the
    C library cannot."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def make_release_memory(every: int = 1) -> Callable[[Language, Dict[str, Any]], None]:
    """A `[training.before_update]` callback that releases freed memory before
    every EVERY-th update (spaCy calls it before each update, with the step)."""
    check_int(every, "every", "spacy-globalner.release_memory.v1", error=Errors.E443)

    def release_memory(nlp: Language, args: Dict[str, Any]) -> None:
        if args["step"] % every == 0:
            release_freed_memory()

    return release_memory
