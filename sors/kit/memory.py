"""Giving freed memory back to the operating system (glibc's malloc; no-ops elsewhere).

Python hands freed blocks back to malloc, and glibc's malloc keeps them for reuse instead of
returning them: after a transcription (CTranslate2, onnxruntime, decoded frames) a worker held
about 230 MB more than it used, and every thread that allocates gets a malloc arena of its
own (up to 8 per core), each keeping its own free blocks (docs/PERFORMANCE.md, "Memory").

- `limit_arenas()`, once at process start: at most two arenas (as `MALLOC_ARENA_MAX=2`).
- `release()`, after a large piece of work (a job, a batch of the demo's world): return the
  free pages of every arena (`malloc_trim(0)`), at most once per `min_interval` seconds.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from functools import cache
from typing import Any

_M_ARENA_MAX = -8  # mallopt parameter (malloc.h)
ARENAS = 2
_last = 0.0
_lock = threading.Lock()


@cache
def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018  (musl has no malloc_trim: AttributeError)
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap malloc's arenas for threads created from now on; False where it cannot."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, arenas))


def release(min_interval: float = 1.0) -> bool:
    """Return malloc's free pages to the system; False when skipped (or not glibc)."""
    global _last
    libc = _glibc()
    if libc is None:
        return False
    with _lock:
        now = time.monotonic()
        if now - _last < min_interval:
            return False
        _last = now
    libc.malloc_trim(0)
    return True
