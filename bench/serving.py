"""The live server a benchmark times: the whole app under uvicorn (uvloop, httptools) on a
loopback port, against a benchmark database, and a funded account to call it with."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_world import _settings  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(
    url: str, data_dir: str, port: int, factory: str = "sors.app:create_app"
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SORS_DATABASE_URL": url,
        "SORS_PLATFORM_SOURCE": "sim",
        "SORS_DATA_DIR": data_dir,
        "SORS_RATE_LIMIT_PER_MINUTE": "1000000",
        "SORS_LOG_LEVEL": "WARNING",
        "SORS_SECRET_KEY": "bench-secret-key",
    }
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        factory,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    return serving(subprocess.Popen(cmd, env=env, cwd=ROOT), port, "the server")


def serving(
    proc: subprocess.Popen[bytes], port: int, what: str, *, seconds: float = 60
) -> subprocess.Popen[bytes]:
    """`proc` once it answers /healthz on `port`; stopped, and the benchmark with it, when it
    does not within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"{what} did not start")


async def _account(url: str, data_dir: str) -> str:
    from sors.accounts.service import create_account
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(_settings(url, data_dir), url))
    async with db.transaction() as s:
        new = await create_account(s, email="bench@example.com", credits=10_000_000,
                                   now=datetime.now(UTC))
    await db.dispose()
    return new.api_key
