"""Giving freed heap memory back to the system after a large passing allocation.

Loading the model (its file is read, rewritten and parsed) and reading a large graph's vectors
free tens of megabytes that glibc's allocator keeps mapped; `malloc_trim` returns them, about a
fifth of a hybrid process's resident memory. Elsewhere (macOS, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable

TRIM_BYTES = 16 * 2**20
"""A graph's vectors read at this size or more are followed by a trim (a trim costs a few
milliseconds, not worth it for a small user's read)."""


@functools.cache
def _trimmer() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def trim() -> bool:
    """Return the heap's free memory to the system; False where that is not possible."""
    release = _trimmer()
    if release is None:
        return False
    release(0)
    return True
