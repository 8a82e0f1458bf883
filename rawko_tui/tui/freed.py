"""Freed memory handed back to the system once a pass over the whole store is done.

The C allocator keeps what Python frees for its own reuse: after the
comparison with the other profiles (hundreds of megabytes of transient views
and indexes at 100,000 memories) the app stayed about 130 MB larger, and lint
grew on top of it.  ``malloc_trim`` returns the free pages (in milliseconds);
where the C library has no such call (not glibc), nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back_freed_memory() -> None:
    trim = _trim()
    if trim is not None:
        trim(0)
