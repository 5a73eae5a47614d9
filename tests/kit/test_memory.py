"""Freed memory goes back to the system (sors.kit.memory, glibc only)."""

from __future__ import annotations

import sys
import threading

import pytest

from sors.kit import memory

pytestmark = pytest.mark.skipif(memory._glibc() is None, reason="glibc's malloc only")


def _rss_mib() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_the_arena_limit_is_accepted_by_glibc() -> None:
    assert memory.limit_arenas() is True


def test_release_returns_what_a_thread_freed_to_the_system() -> None:
    # 1 KiB objects come from malloc (CPython's own allocator stops at 512 bytes); freed in
    # the middle of the heap, glibc keeps them unless trimmed.
    held: list[bytes] = []

    def allocate() -> None:
        held.extend(bytes(1024) + bytes([i % 256]) for i in range(150_000))

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    keep = held[::50]  # a few survivors pin the heap's top: only a trim gives the rest back
    del held[:]
    before = _rss_mib()
    memory._last = 0.0
    assert memory.release() is True
    after = _rss_mib()
    assert before - after > 50, (before, after)
    assert len(keep) == 3_000


def test_release_runs_at_most_once_per_interval() -> None:
    memory._last = 0.0
    assert memory.release(min_interval=60) is True
    assert memory.release(min_interval=60) is False


def test_nothing_happens_off_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    memory._glibc.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        assert memory.limit_arenas() is False
        assert memory.release() is False
    finally:
        memory._glibc.cache_clear()
