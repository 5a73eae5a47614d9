"""Rising posts at a million posts: `trends/rising` latency and the scheduled curve statement.

    python bench/rising_million.py history --admin-url URL --database sors_bench_rising
    python bench/rising_million.py run --admin-url URL --database sors_bench_rising [--rounds 30]

The 1M-post database (bench/search.py build) holds one snapshot per post, taken at its
build time: nothing to draw a creator's curve from. `history` (on a copy of it) gives every
post published in the 90 days before that time the snapshots a creator under a rising
alert is crawled with (1, 3, 6, 12, 24, 48, 72 h, daily to 7 days, then 10, 14, 20 and
30 days of age; bench/rising.py's looks), their counters read from the simulated world at
those moments, loaded with COPY. Then it runs the product's own statements over the whole
catalog, timed: the scheduled curve statement (`catalog.curves.refresh`, 500 profiles a
transaction) and the projection step of ingest (`catalog.projections.update`, 100 profiles
a transaction, as one crawl batch runs it), then `VACUUM ANALYZE`.

`run` starts a real uvicorn server on the copy and sends a mix of `POST /trends/rising`
requests over one keep-alive connection (the full billed call), alternating each with the
same request answered by the service function in-process (`catalog.rising_trends.rising`
on a session of its own), and prints p50 / p95 of both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.rising import LOOKS_HOURS  # noqa: E402
from bench.search import _account, _free_port, _pct, _prewarm, _start_server  # noqa: E402
from bench.search_world import NOW, SEED, _settings, admin_url, db_url  # noqa: E402

HISTORY_DAYS = 90
MIX: list[dict[str, Any]] = [
    {},
    {"platforms": ["tiktok"]},
    {"query": "sourdough"},
    {"categoryId": "food"},
    {"maxAgeHours": 24},
    {"maxAgeHours": 168, "limit": 50},
    {"platforms": ["youtube", "instagram"], "query": "morning routine"},
]


# ---- history --------------------------------------------------------------------------


def _looks(profiles: list[tuple[str, str, str]]) -> list[tuple[Any, ...]]:
    """Snapshot rows for these (profile id, platform, handle): each post published in the
    HISTORY_DAYS before NOW, seen at every look age before NOW (runs in a worker process)."""
    from sors.platforms.sim import posts as sim_posts
    from sors.platforms.sim.world import SimWorld

    world = SimWorld(SEED)
    now = NOW.timestamp()
    since = now - HISTORY_DAYS * 86400.0
    rows: list[tuple[Any, ...]] = []
    for _pid, platform, handle in profiles:
        a = world.account(platform, handle)  # type: ignore[arg-type]
        for n, s in enumerate(sim_posts.live_slots(a, now)):
            if n >= 60:
                break
            published = sim_posts.post_snapshot(a, handle, s, now).published_at
            t0 = published.timestamp()
            if t0 < since:
                break
            ext = sim_posts.post_id(platform, s)
            for hours in LOOKS_HOURS:
                t = t0 + hours * 3600.0
                if t >= now:
                    break
                snap = sim_posts.post_snapshot(a, handle, s, t)
                rows.append((platform, ext, published + timedelta(hours=hours), snap.views,
                             snap.likes, snap.comments, snap.shares))
    return rows


async def _statements(url: str, data_dir: str, ids: list[str]) -> dict[str, Any]:
    from sors.catalog.ingest import curves, projections
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(_settings(url, data_dir), url))
    out: dict[str, Any] = {"curves_ms": [], "projections_ms": [], "changed": 0}
    try:
        while True:
            t = time.perf_counter()
            async with db.transaction() as s:
                due = await curves.refresh(s, limit=500)
            if not due:
                break
            out["curves_ms"].append((time.perf_counter() - t) * 1000)
        for i in range(0, len(ids), 100):
            t = time.perf_counter()
            async with db.transaction() as s:
                out["changed"] += await projections.update(s, ids[i : i + 100], [NOW] * 100)
            out["projections_ms"].append((time.perf_counter() - t) * 1000)
    finally:
        await db.dispose()
    return out


def history(args: argparse.Namespace) -> None:
    from sors.kit.db import to_async_url, to_plain_url

    url = to_async_url(db_url(admin_url(args), args.database))
    plain = to_plain_url(url)
    with psycopg.connect(plain) as conn:
        profiles = conn.execute(
            "SELECT id, platform, handle FROM profiles ORDER BY id").fetchall()
        ids = {(p, e): i for i, p, e in conn.execute(
            "SELECT id, platform, platform_post_id FROM posts")}
    started = time.perf_counter()
    chunks = [profiles[i : i + 500] for i in range(0, len(profiles), 500)]
    written = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool, psycopg.connect(plain) as conn:
        for rows in pool.map(_looks, chunks):
            with conn.cursor() as cur, cur.copy(
                "COPY post_stats (post_id, crawled_at, views, likes, comments, shares) FROM STDIN"
            ) as copy:
                for platform, ext, *rest in rows:
                    post = ids.get((platform, ext))
                    if post is not None:
                        copy.write_row((post, *rest))
                        written += 1
            conn.commit()
    print(f"{written:,} snapshots written in {time.perf_counter() - started:,.0f} s", flush=True)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE post_stats")
    r = asyncio.run(_statements(url, args.data_dir, [p[0] for p in profiles]))
    for name in ("curves_ms", "projections_ms"):
        v = r[name]
        print(f"{name}: {len(v)} transactions, total {sum(v) / 1000:,.1f} s, "
              f"p50 {statistics.median(v):,.0f} ms, p95 {_pct(v, 0.95):,.0f} ms")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        young, rising, projected, curves = conn.execute(
            "SELECT (SELECT count(*) FROM posts WHERE published_at > %s),"
            " (SELECT count(*) FROM posts WHERE rising AND published_at > %s),"
            " (SELECT count(*) FROM posts WHERE projection IS NOT NULL),"
            " (SELECT count(*) FROM creator_curves WHERE p50 IS NOT NULL)",
            (NOW - timedelta(hours=72), NOW - timedelta(hours=72)),
        ).fetchone()  # type: ignore[misc]
    print(f"{r['changed']:,} projections written; {projected:,} posts projected; "
          f"{curves:,} curve points; {young:,} posts younger than 72 h, {rising:,} rising")


# ---- run ------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> None:
    from sors.kit.db import Database, make_engine, to_async_url, to_plain_url
    from sors.rising.schemas import RisingIn
    from sors.rising.service import rising

    url = to_async_url(db_url(admin_url(args), args.database))
    key = asyncio.run(_account(url, args.data_dir))
    port = _free_port()
    server = _start_server(url, args.data_dir, port)
    http_ms: dict[int, list[float]] = {i: [] for i in range(len(MIX))}
    inproc_ms: dict[int, list[float]] = {i: [] for i in range(len(MIX))}
    found: dict[int, int] = {}
    load: list[float] = []
    loop = asyncio.new_event_loop()
    db = Database(make_engine(_settings(url, args.data_dir), url))

    async def direct(body: dict[str, Any]) -> int:
        async with db.transaction() as s:
            return len((await rising(s, RisingIn.model_validate(body)))["posts"])

    try:
        with (
            httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1",
                         headers={"Authorization": f"Bearer {key}"}) as client,
            psycopg.connect(to_plain_url(url)) as conn,
        ):
            _prewarm(conn)
            for rnd in range(args.rounds + 2):  # two warm-up rounds
                if rnd >= 2:
                    load.append(os.getloadavg()[0])
                for i, body in enumerate(MIX):
                    t = time.perf_counter()
                    r = client.post("/trends/rising", json=body)
                    h = (time.perf_counter() - t) * 1000
                    assert r.status_code == 200, r.text
                    t = time.perf_counter()
                    n = loop.run_until_complete(direct(body))
                    d = (time.perf_counter() - t) * 1000
                    assert n == len(r.json()["posts"]), (n, len(r.json()["posts"]))
                    found[i] = n
                    if rnd >= 2:
                        http_ms[i].append(h)
                        inproc_ms[i].append(d)
    finally:
        server.terminate()
        server.wait(10)
        loop.run_until_complete(db.dispose())
        loop.close()
    all_h = [v for vs in http_ms.values() for v in vs]
    all_d = [v for vs in inproc_ms.values() for v in vs]
    print(f"{args.rounds} rounds, load {statistics.mean(load):.2f}")
    print(f"all: HTTP p50 {_pct(all_h, 0.5):.1f} / p95 {_pct(all_h, 0.95):.1f} ms; "
          f"in-process p50 {_pct(all_d, 0.5):.1f} / p95 {_pct(all_d, 0.95):.1f} ms")
    for i, body in enumerate(MIX):
        print(f"  {body!s:<60} {found[i]:>3} posts  HTTP {statistics.median(http_ms[i]):6.1f} / "
              f"{_pct(http_ms[i], 0.95):6.1f}  in-process {statistics.median(inproc_ms[i]):6.1f}"
              f" / {_pct(inproc_ms[i], 0.95):6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["history", "run"])
    ap.add_argument("--data-dir", default="/tmp/sors-bench")
    ap.add_argument("--admin-url", default=None)
    ap.add_argument("--database", default="sors_bench_rising")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    history(args) if args.command == "history" else run(args)


if __name__ == "__main__":
    main()
