"""MCP vs HTTP: the same `search_outliers` call through the MCP door and as plain HTTP.

    python bench/mcp_vs_http.py [--admin-url URL] [--profiles 300] [--rounds 200]
                                [--write docs/PERFORMANCE.md]

Builds a throwaway database (`sors_bench_mcp_<pid>`) on the given PostgreSQL server, seeds a
simulated world through the real seed path, starts `sors api` on a loopback port, and then
alternates (the order flipping each round) one `POST /api/v1/search/content {}` over a
keep-alive HTTP connection with one `tools/call search_outliers {}` from the official MCP
client (Streamable HTTP, one initialized session). Both are billed; the difference is what
the MCP layer costs: its own request, the key check before it, JSON-RPC framing, and the
in-process ASGI call of the same route. Prints p50/p95; `--write` appends them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serving import serving  # noqa: E402

NOW = datetime(2026, 11, 1, tzinfo=UTC)
BODY: dict[str, Any] = {}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _prepare(url: str, data_dir: str, profiles: int) -> str:
    from sors.config import Settings
    from sors.demo.seed import seed_world
    from sors.kit.db import Database, make_engine
    from tests.factories import create_account

    s = Settings(data_dir=Path(data_dir), database_url=url, platform_source="sim",
                 secret_key="bench-secret-key", log_level="WARNING")
    db = Database(make_engine(s, url))
    try:
        await seed_world(db, settings=s, profiles=profiles, seed=7, now=NOW)
        _, key = await create_account(db, credits=1_000_000, email="bench@example.com")
    finally:
        await db.dispose()
    return key


def _start(url: str, data_dir: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SORS_DATABASE_URL": url, "SORS_DATA_DIR": data_dir,
           "SORS_PLATFORM_SOURCE": "sim", "SORS_SECRET_KEY": "bench-secret-key",
           "SORS_LOG_LEVEL": "WARNING", "SORS_RATE_LIMIT_PER_MINUTE": "1000000"}
    cmd = [sys.executable, "-m", "sors.cli.main", "api", "--host", "127.0.0.1",
           "--port", str(port)]
    return serving(subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL), port,
                   "sors api")


async def _measure(base: str, key: str, rounds: int) -> dict[str, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    times: dict[str, list[float]] = {"http": [], "mcp": []}
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http,
        httpx2.AsyncClient(headers=headers, timeout=60) as http2,
        streamable_http_client(base + "/mcp", http_client=http2) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.list_tools()

        async def over_http() -> None:
            r = await http.post("/api/v1/search/content", json=BODY)
            assert r.status_code == 200, r.text

        async def over_mcp() -> None:
            result = await session.call_tool("search_outliers", BODY)
            assert not result.is_error, result.content

        for _ in range(10):  # warm both paths (connections, caches, plans)
            await over_http()
            await over_mcp()
        for i in range(rounds):
            pair = [("http", over_http), ("mcp", over_mcp)]
            for name, fn in pair if i % 2 == 0 else pair[::-1]:
                started = time.perf_counter()
                await fn()
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:55432/postgres")
    parser.add_argument("--profiles", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--write", default=None, help="append the result to this markdown file")
    args = parser.parse_args()

    from sors.kit.db import to_async_url
    from tests.factories.cluster import free_port

    name = f"sors_bench_mcp_{os.getpid()}"
    with psycopg.connect(args.admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base_url, _, query = args.admin_url.partition("?")
    url = to_async_url(base_url.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else ""))
    data_dir = tempfile.mkdtemp(prefix="sors-bench-mcp-")
    proc = None
    try:
        from sors.kit import migrate

        migrate.upgrade(url)
        key = asyncio.run(_prepare(url, data_dir, args.profiles))
        port = free_port()
        proc = _start(url, data_dir, port)
        times = asyncio.run(_measure(f"http://127.0.0.1:{port}", key, args.rounds))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)
        with psycopg.connect(args.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    rows = {k: (statistics.median(v), _pct(v, 0.95)) for k, v in times.items()}
    for k, (p50, p95) in rows.items():
        print(f"{k:5s} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   n={len(times[k])}")
    if args.write:
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        lines = [
            f"\n### Run {when}: {args.rounds} alternating pairs, {args.profiles} simulated "
            f"profiles, {platform.machine()} {os.cpu_count()} cores (shared with other work)\n",
            "| `search_outliers` `{}` | p50 (ms) | p95 (ms) |", "|---|---:|---:|",
            f"| HTTP `POST /api/v1/search/content` | {rows['http'][0]:.1f} "
            f"| {rows['http'][1]:.1f} |",
            f"| MCP `tools/call` (Streamable HTTP) | {rows['mcp'][0]:.1f} | {rows['mcp'][1]:.1f} |",
        ]
        with open(args.write, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
