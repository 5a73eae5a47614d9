"""Sounds and hashtags over time: how well the stages of POST /trends/sounds match the
simulated world's adoption curves, and how fast /trends/sounds, /trends/hashtags and
GET /sounds/{id} answer.

    .venv/bin/python bench/sounds.py build [--profiles 2000 | --posts 1000000]
                                           [--seed 0] [--at 2026-09-22T10:00:00Z] [--jobs 2]
    .venv/bin/python bench/sounds.py stages [--json]
    .venv/bin/python bench/sounds.py speed [--rounds 20]
    .venv/bin/python bench/sounds.py boilerplate [--json]

`build` makes a database of its own (`sors_bench_sounds`, on the embedded server in
`--data-dir` or on `--admin-url`) and fills it with first crawls of a simulated world
through the real ingest, so the sounds, hashtag uses and rollup marks are the ones crawls
make; then it rolls every marked day up and finds the boilerplate, as the scheduler would.
By default the world is the demo's (seed 0, its first 2,000 creators, at the demo's
moment); `--posts N` takes as many creators as N posts need. `stages` compares the stage of
every trending sound (each niche and all niches, every third day of the last month) with
the world's truth (`sors.platforms.sim.sounds`). `speed` times the endpoints over HTTP
against a real uvicorn server, p50 and p95. `boilerplate` counts, in the top 10 hashtag
and phrase breakouts of each niche (three months, two creators), the world's own
boilerplate (its platform tags, its caption templates' word pairs) and phrase fragments
(overlapping another of the top 10), without the boilerplate table and the phrase merge
(before) and with them (after).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_world import _settings  # noqa: E402
from bench.search_world import admin_url as _admin  # noqa: E402
from bench.search_world import db_url as _db_url  # noqa: E402
from bench.serving import _account, _free_port, _start_server  # noqa: E402

DB_NAME = "sors_bench_sounds"
STAGE_MOMENTS = 11  # every third day back from the world's moment
DEMO_AT = "2026-09-22T10:00:00Z"
BATCH = 100


def _url(args: argparse.Namespace) -> str:
    from sors.kit.db import to_async_url

    return to_async_url(_db_url(_admin(args), DB_NAME))


async def _prepare(url: str, data_dir: str, seed: int, at: datetime) -> None:
    from sors.demo.seed import ensure_categories
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim import clock

    db = Database(make_engine(_settings(url, data_dir), url))
    async with db.transaction() as s:
        await ensure_categories(s)
        await clock.ensure_state(s, seed=seed, at=at)
        await clock.set_time(s, at)
    await db.dispose()


def _ingest(url: str, data_dir: str, seed: int, at: datetime,
            handles: list[tuple[str, str]]) -> int:
    return asyncio.run(_ingest_async(url, data_dir, seed, at, handles))


async def _ingest_async(url: str, data_dir: str, seed: int, at: datetime,
                        handles: list[tuple[str, str]]) -> int:
    from sors.catalog.ingest.service import ingest_crawls
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.world import SimWorld

    db = Database(make_engine(_settings(url, data_dir), url))
    world, posts = SimWorld(seed), 0
    try:
        for i in range(0, len(handles), BATCH):
            batch = [world.crawl(p, h, at) for p, h in handles[i : i + BATCH]]  # type: ignore[arg-type]
            async with db.transaction() as s:
                await ingest_crawls(s, batch)
            posts += sum(len(c.posts) for c in batch)
    finally:
        await db.dispose()
    return posts


async def _world(url: str, data_dir: str) -> tuple[int, datetime]:
    """The world's seed and moment, as `build` stored them."""
    from sqlalchemy import text

    from sors.kit.db import Database, make_engine

    db = Database(make_engine(_settings(url, data_dir), url))
    try:
        async with db.session() as s:
            seed, at = (await s.execute(text("SELECT seed, now FROM sim_state"))).one()
    finally:
        await db.dispose()
    return int(seed), at


async def _finish(url: str, data_dir: str, at: datetime) -> dict[str, int]:
    """Roll every marked day up and find the boilerplate, as the scheduler's checks do."""
    from sors.catalog.usage import boilerplate, rollup
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(_settings(url, data_dir), url))
    days = 0
    try:
        while True:
            async with db.transaction() as s:
                done = await rollup.roll(s, at, limit=20)
            days += done.days
            if not done.days:
                break
        async with db.transaction() as s:
            found = await boilerplate.recompute(s, at)
    finally:
        await db.dispose()
    return {"days": days, "boilerplate": found}


def build(args: argparse.Namespace) -> None:
    from sors.kit.db import to_plain_url
    from sors.kit.migrate import upgrade
    from sors.platforms.sim.world import SimWorld

    admin = _admin(args)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    url = _url(args)
    upgrade(url)
    at = datetime.fromisoformat(args.at.replace("Z", "+00:00"))
    asyncio.run(_prepare(url, args.data_dir, args.seed, at))
    wanted = math.ceil(args.posts / 60 * 1.12) if args.posts else args.profiles
    handles = SimWorld(args.seed).sample_handles(wanted)
    chunks = [handles[i : i + 200] for i in range(0, len(handles), 200)]
    started, total = time.perf_counter(), 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        n_chunks = len(chunks)
        for n in pool.map(_ingest, [url] * n_chunks, [args.data_dir] * n_chunks,
                          [args.seed] * n_chunks, [at] * n_chunks, chunks):
            total += n
            print(f"{total:,} posts, {total / (time.perf_counter() - started):,.0f} posts/s",
                  flush=True)
            if args.posts and total >= args.posts:
                break
    print(asyncio.run(_finish(url, args.data_dir, at)))
    with psycopg.connect(to_plain_url(url), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        n = conn.execute("SELECT count(*) FROM posts").fetchone()[0]  # type: ignore[index]
    print(f"built {n:,} posts in {time.perf_counter() - started:,.0f} s")


# ---- stages ------------------------------------------------------------------------------


async def _stages(url: str, data_dir: str) -> dict[str, Any]:
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim import sounds as world_sounds
    from sors.sounds import service
    from sors.sounds.schemas import NICHES

    seed, moment = await _world(url, data_dir)
    db = Database(make_engine(_settings(url, data_dir), url))
    pairs: Counter[tuple[str, str]] = Counter()
    try:
        async with db.session() as s:
            keys = dict((await s.execute(_text("SELECT id, sound_key FROM sounds"))).all())
            for back in range(STAGE_MOMENTS):
                at = moment - timedelta(days=3 * back)
                for niche in (None, *NICHES):
                    for row, stage in await service.candidates(s, now=at, days=7, niche=niche):
                        truth = world_sounds.by_id(seed, row["platform"],
                                                   keys[row["sound_id"]], at.timestamp())
                        pairs[(stage, (truth.stage_at(at.timestamp()) if truth else None)
                               or "none")] += 1
    finally:
        await db.dispose()
    out: dict[str, Any] = {"seed": seed, "at": moment.isoformat(), "moments": STAGE_MOMENTS,
                           "confusion": {}}
    for stage in ("emerging", "rising", "peaking", "fading"):
        row = {t: n for (s_, t), n in pairs.items() if s_ == stage}
        total = sum(row.values())
        out["confusion"][stage] = row
        out[f"{stage}Precision"] = round(row.get(stage, 0) / total, 3) if total else None
        out[f"{stage}Labelled"] = total
    early = sum(n for (s_, t), n in pairs.items()
                if s_ in ("emerging", "rising") and t in ("emerging", "rising"))
    labelled = sum(n for (s_, _), n in pairs.items() if s_ in ("emerging", "rising"))
    out["earlyPrecision"] = round(early / labelled, 3) if labelled else None
    return out


def _text(sql: str) -> Any:
    from sqlalchemy import text

    return text(sql)


def stages(args: argparse.Namespace) -> None:
    result = asyncio.run(_stages(_url(args), args.data_dir))
    print(json.dumps(result, indent=None if args.json else 1))


# ---- speed -------------------------------------------------------------------------------

MIX: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/trends/sounds", {}),
    ("POST", "/trends/sounds", {"timeFrame": "one_month"}),
    ("POST", "/trends/sounds", {"categoryId": "food"}),
    ("POST", "/trends/sounds", {"platforms": ["tiktok"], "stages": ["emerging", "rising"]}),
    ("POST", "/trends/hashtags", {}),
    ("POST", "/trends/hashtags", {"timeFrame": "one_month"}),
    ("POST", "/trends/hashtags", {"categoryId": "fitness"}),
    ("POST", "/trends/hashtags", {"platforms": ["instagram"], "timeFrame": "two_weeks"}),
]


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p * len(xs)) - 1))]


def speed(args: argparse.Namespace) -> None:
    url = _url(args)
    port = _free_port()
    key = asyncio.run(_account(url, args.data_dir))
    server = _start_server(url, args.data_dir, port)
    times: dict[str, list[float]] = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1", timeout=60,
                          headers={"Authorization": f"Bearer {key}"}) as c:
            first = c.post("/trends/sounds", json={}).json()["sounds"]
            calls = [*MIX, *[("GET", f"/sounds/{x['soundId']}", None) for x in first[:2]]]
            for _ in range(2):  # warm the server's statements and the database's pages
                for m, p, b in calls:
                    c.request(m, p, json=b)
            for _ in range(args.rounds):
                for m, p, b in calls:
                    t = time.perf_counter()
                    r = c.request(m, p, json=b)
                    assert r.status_code == 200, r.text
                    name = "GET /sounds/{id}" if p.startswith("/sounds/") else f"{m} {p}"
                    times.setdefault(name, []).append((time.perf_counter() - t) * 1000)
    finally:
        server.terminate()
        server.wait(10)
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True
                         ) as conn:
        posts = conn.execute("SELECT count(*) FROM posts").fetchone()[0]  # type: ignore[index]
    print(f"{posts:,} posts, {args.rounds} rounds")
    for name, xs in times.items():
        print(f"{name:24} n={len(xs):4} p50={statistics.median(xs):7.1f} ms "
              f"p95={_pct(xs, 0.95):7.1f} ms")


# ---- boilerplate in breakouts ------------------------------------------------------------


def _truth_boilerplate() -> tuple[set[str], set[str]]:
    """The world's own boilerplate: the platforms' tags it adds to captions, and the word
    pairs of its caption templates (the topic left out)."""
    import re

    from sors.breakouts.merge import words
    from sors.platforms.sim import content

    tags = {t for ts in content._PLATFORM_TAGS.values() for t in ts}
    pairs = set()
    for template in content._CAPTION_TEMPLATES:
        for part in re.split(r"\{[tTn]\}", template):
            ws = words(part)
            pairs |= {f"{a} {b}" for a, b in itertools.pairwise(ws)
                      if len(a) >= 3 and len(b) >= 3}
    return tags, pairs


async def _boilerplate(url: str, data_dir: str) -> dict[str, Any]:
    from sqlalchemy import text

    from sors.breakouts import repository as repo
    from sors.breakouts import service
    from sors.breakouts.schemas import BreakoutsIn
    from sors.kit.db import Database, make_engine
    from sors.sounds.schemas import NICHES

    _, moment = await _world(url, data_dir)
    tags, pairs = _truth_boilerplate()
    db = Database(make_engine(_settings(url, data_dir), url))

    def judge(rows: list[tuple[str, str]]) -> tuple[int, int]:
        phrases = [i for k, i in rows if k == "phrase"]
        fragments = sum(1 for k, i in rows if k == "phrase" and any(
            o != i and (o.split()[0] == i.split()[-1] or o.split()[-1] == i.split()[0])
            for o in phrases))
        boiler = sum(1 for k, i in rows if (k == "hashtag" and i in tags)
                     or (k == "phrase" and i in pairs))
        return boiler, fragments

    out: dict[str, Any] = {"niches": {}}
    totals = Counter[str]()
    try:
        for niche in NICHES:
            body = BreakoutsIn(categoryId=niche, kinds=["hashtag", "phrase"],
                               timeFrame="three_months", minCreators=2, limit=10)
            async with db.session() as s:
                async with s.begin():
                    await s.execute(text("DELETE FROM idea_boilerplate"))
                    q = repo.BreakoutQuery(
                        since=moment - timedelta(days=90), min_score=3.0, min_creators=2,
                        kinds=["hashtag", "phrase"], score_window="three_months",
                        score_method="mean", limit=10, category_ids=[niche],
                        category_label=niche)
                    before = [(r["kind"], r["idea"]) for r in await repo.breakouts(s, q)]
                    await s.rollback()
            async with db.session() as s:
                after_out = await service.find_breakouts(s, body, now=moment, min_age_hours=24)
            after = [(b.kind, b.idea) for b in after_out.breakouts]
            b0, f0 = judge(before)
            b1, f1 = judge(after)
            totals.update(before=len(before), after=len(after), boiler_before=b0,
                          fragments_before=f0, boiler_after=b1, fragments_after=f1)
            out["niches"][niche] = {"before": before, "after": after}
    finally:
        await db.dispose()
    for when in ("before", "after"):
        n = totals[when]
        bad = totals[f"boiler_{when}"] + totals[f"fragments_{when}"]
        out[when] = {"ideas": n, "boilerplate": totals[f"boiler_{when}"],
                     "fragments": totals[f"fragments_{when}"],
                     "share": round(bad / n, 3) if n else None}
    return out


def boilerplate_cmd(args: argparse.Namespace) -> None:
    result = asyncio.run(_boilerplate(_url(args), args.data_dir))
    if not args.json:
        result.pop("niches")
    print(json.dumps(result, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default="/tmp/sors-bench-sounds")
    parser.add_argument("--admin-url", default=None)
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--profiles", type=int, default=2000)
    b.add_argument("--posts", type=int, default=None)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--at", default=DEMO_AT)
    b.add_argument("--jobs", type=int, default=2)
    s = sub.add_parser("stages")
    s.add_argument("--json", action="store_true")
    sp = sub.add_parser("speed")
    sp.add_argument("--rounds", type=int, default=20)
    bp = sub.add_parser("boilerplate")
    bp.add_argument("--json", action="store_true")
    args = parser.parse_args()
    {"build": build, "stages": stages, "speed": speed,
     "boilerplate": boilerplate_cmd}[args.cmd](args)


if __name__ == "__main__":
    main()
