"""Platform pacing shared by worker processes: two OS processes requesting one platform
through the shared pacer keep its pace together, measured where the requests arrive (an
HTTP server on loopback). Per-process pacing, the old behaviour, is run the same way to show
the measurement catches two processes pacing alone. Both stores are covered: PostgreSQL and
Redis (a real redis-server on loopback)."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from sors.kit.db import to_plain_url

INTERVAL = 0.3
PER_PROCESS = 8

# One "worker process": paces PER_PROCESS requests to the loopback source.
CHILD = r"""
import asyncio, sys, httpx
from sors.platforms.live.pacing import PacingPolicy, PacerRegistry
from sors.platforms.shared_pacing import (PostgresPacingStore, RedisPacingStore,
                                          SharedPacerRegistry)
from sors.kit.db import Database, make_engine
from sors.config import Settings

store_kind, url, source, n, interval = sys.argv[1:6]
policy = {"tiktok": PacingPolicy(min_interval=float(interval), jitter=0.0)}

async def main():
    db = None
    if store_kind == "postgres":
        db = Database(make_engine(Settings(database_url=url, platform_source="sim"), url))
        pacers = SharedPacerRegistry(PostgresPacingStore(db), policy)
    elif store_kind == "redis":
        pacers = SharedPacerRegistry(RedisPacingStore(url), policy)
    else:
        pacers = PacerRegistry(policy)
    pacer = pacers.get("tiktok")
    async with httpx.AsyncClient() as http:
        await http.get(source.replace("/profile", "/warm-up"))  # connect before the clock runs
        print("ready", flush=True)
        sys.stdin.readline()  # start together
        for _ in range(int(n)):
            await pacer.call(lambda: http.get(source))
    if db is not None:
        await db.dispose()

asyncio.run(main())
"""


class _Source(BaseHTTPRequestHandler):
    arrivals: ClassVar[list[float]] = []

    def do_GET(self) -> None:
        if self.path == "/profile":
            type(self).arrivals.append(time.monotonic())
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args) -> None:
        pass


def _run_two(store_kind: str, url: str) -> list[float]:
    _Source.arrivals = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Source)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    source = f"http://127.0.0.1:{server.server_address[1]}/profile"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs = [
        subprocess.Popen([sys.executable, "-c", CHILD, store_kind, url, source,
                          str(PER_PROCESS), str(INTERVAL)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        for p in procs:
            assert p.wait(timeout=60) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        server.shutdown()
    return sorted(_Source.arrivals)


def _gaps(arrivals: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(arrivals)]


def _busiest_second(arrivals: list[float]) -> int:
    return max(sum(1 for b in arrivals if a <= b < a + 1.0) for a in arrivals)


def assert_one_pace(arrivals: list[float]) -> None:
    """One pace for both processes: the requests span (n-1) intervals, no second holds
    more than one interval's share (+1 for where the window starts), and no two arrive
    together. Loopback delivery on a busy machine jitters by tens of milliseconds, so the
    gaps are not compared to the interval one by one."""
    gaps = _gaps(arrivals)
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * INTERVAL - 0.1, gaps
    assert _busiest_second(arrivals) <= int(1 / INTERVAL) + 1, gaps
    assert min(gaps) >= INTERVAL / 3, gaps


async def _reset_pg(pg_url: str) -> None:
    import psycopg

    async with await psycopg.AsyncConnection.connect(to_plain_url(pg_url), autocommit=True) as c:
        await c.execute("DELETE FROM platform_pacing")


async def test_two_processes_share_one_pace_through_postgresql(pg_url: str) -> None:
    await _reset_pg(pg_url)
    arrivals = await asyncio.to_thread(_run_two, "postgres", pg_url)
    assert len(arrivals) == 2 * PER_PROCESS
    assert_one_pace(arrivals)

    # The old per-process pacing on the same source: each process keeps its own pace, so
    # together they send twice the rate.
    alone = await asyncio.to_thread(_run_two, "process", "")
    assert _busiest_second(alone) >= 2 * int(1 / INTERVAL), _gaps(alone)
    with pytest.raises(AssertionError):
        assert_one_pace(alone)


@pytest.fixture
def redis_url():
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/bootstrap.sh installs it)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    workdir = tempfile.mkdtemp(prefix="sors-redis-")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)
    shutil.rmtree(workdir, ignore_errors=True)


def test_two_processes_share_one_pace_through_redis(redis_url: str) -> None:
    arrivals = _run_two("redis", redis_url)
    assert len(arrivals) == 2 * PER_PROCESS
    assert_one_pace(arrivals)


async def test_user_requests_go_before_keeper_requests(db) -> None:
    """With the schedule busy, a background (keeper) request waits for a free moment; user
    requests queued meanwhile all go first."""
    from sors.platforms.live.pacing import PacingPolicy
    from sors.platforms.shared_pacing import PostgresPacingStore, SharedPacer, background

    async with db.transaction() as s:
        from sqlalchemy import text

        await s.execute(text("DELETE FROM platform_pacing"))
    pacer = SharedPacer("prio", PacingPolicy(min_interval=0.2, jitter=0.0),
                        PostgresPacingStore(db))
    order: list[str] = []

    async def request(name: str, is_background: bool, delay: float) -> None:
        await asyncio.sleep(delay)
        background.set(is_background)
        await pacer.wait()
        order.append(name)

    await asyncio.gather(
        request("user-1", False, 0.0),
        request("keeper", True, 0.05),  # arrives second, while user-1's interval runs
        request("user-2", False, 0.1),
        request("user-3", False, 0.15),
    )
    assert order == ["user-1", "user-2", "user-3", "keeper"]
