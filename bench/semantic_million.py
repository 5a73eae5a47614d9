"""Search by meaning at a million posts: latency over HTTP and in-process, and index recall.

    python bench/search.py build --data-dir /tmp/sors-bench1m        # the 1M-post database
    python bench/semantic_million.py --data-dir /tmp/sors-bench1m [--recall-queries 30]
        [--rebuild-index] [--database sors_bench]

On the embedded PostgreSQL (it has pgvector): embeds every post of `sors_bench` that has no
vector (the build loads posts with COPY, not through ingest), builds the index over all
vectors when it is due as the scheduler's job would (its build time is reported), then for
50 paraphrase queries
(bench/semantic.py) and 50 posts, each under four filter sets:
- `semantic` and `similarTo` over HTTP (a `uvicorn` server of the app, billed) and as the
  service function in-process (the same statements without HTTP and billing), p50/p95;
- recall@10 of the nearest-neighbour read: the index's answer (iterative scan, filters
  applied) against the exact answer (the same statement with index scans off; skipped with
  `--recall-queries 0`).
Before timing, `posts`, `post_embeddings` and their indexes are loaded into shared buffers
(pg_prewarm), as a server that has been answering for a while holds them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

FILTERS: list[dict[str, Any]] = [
    {},
    {"platforms": ["tiktok"]},
    {"minOutlierScore": 3},
    {"maxFollowers": 50_000, "timeFrame": "one_month"},
]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _embed_all(url: str, settings: Any, *, rebuild: bool = False) -> dict[str, Any]:
    from sqlalchemy import text

    from sors.catalog.vectors import embeddings
    from sors.catalog.vectors import index as vector_index
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(settings, url))
    out: dict[str, Any] = {}
    try:
        async with db.session() as s:
            missing = (await s.execute(text(
                "SELECT count(*) FROM posts p WHERE NOT EXISTS "
                "(SELECT 1 FROM post_embeddings e WHERE e.post_id = p.id)"))).scalar()
        out["embedded"] = int(missing or 0)
        if missing:
            started, cursor, done = time.perf_counter(), "", 0
            out["loadEmbedStart"] = round(os.getloadavg()[0], 2)
            while True:
                async with db.transaction() as s:
                    ids = [r[0] for r in await s.execute(text(
                        "SELECT id FROM posts WHERE id > :c ORDER BY id LIMIT 20000"),
                        {"c": cursor})]
                    if not ids:
                        break
                    done += await embeddings.refresh_now(s, settings, ids)
                    cursor = ids[-1]
                elapsed = time.perf_counter() - started
                print(f"{done:,} embedded in {elapsed:,.0f} s ({done / elapsed:,.0f} posts/s),"
                      f" load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
            out["embedSeconds"] = round(time.perf_counter() - started, 1)
            out["embedPostsPerSecond"] = round(done / out["embedSeconds"], 1)
            out["loadEmbedEnd"] = round(os.getloadavg()[0], 2)
        model = embeddings.embedder_or_none(settings)
        assert model is not None
        if rebuild:  # time the build again: the index goes, so the next one is due
            async with db.transaction() as s:
                old = (await s.execute(text(
                    "SELECT index_name FROM embedding_backfill WHERE model = :m"),
                    {"m": model.key})).scalar()
                if old:
                    await s.execute(text(f'DROP INDEX IF EXISTS "{old}"'))
        built = await vector_index.train(db, model.key, model.dims)  # the scheduler's job
        if built["built"]:
            out["indexSeconds"] = built["seconds"]
        async with db.session() as s:
            name, lists = (await s.execute(text(
                "SELECT index_name, index_lists FROM embedding_backfill WHERE model = :m"),
                {"m": model.key})).one()
            out["index"] = {"name": name, "lists": lists, "mb": round((await s.execute(text(
                "SELECT pg_relation_size(CAST(:n AS regclass))"), {"n": name})).scalar() / 2**20)}
            out["posts"] = (await s.execute(text("SELECT count(*) FROM posts"))).scalar()
    finally:
        await db.dispose()
    return out


async def _direct_and_recall(
    url: str, settings: Any, posts: list[str], *, recall: int = 50
) -> dict[str, Any]:
    from dataclasses import replace
    from datetime import UTC, datetime

    from semantic import QUERIES
    from sqlalchemy import select, text

    from sors.catalog.search import semantic, service, words
    from sors.catalog.search.schemas import SearchContentIn
    from sors.catalog.vectors import embeddings
    from sors.kit.db import Database, make_engine

    db = Database(make_engine(settings, url))
    times: dict[str, list[float]] = {"semantic": [], "similarTo": []}
    per_filter: dict[str, list[float]] = {}
    recalls: dict[str, list[float]] = {}
    model = embeddings.embedder_or_none(settings)
    assert model is not None
    try:
        for flt in FILTERS:
            for n, ((query, _), post) in enumerate(zip(QUERIES, posts, strict=False)):
                for kind, body in (("semantic", {"query": query, "semantic": True}),
                                   ("similarTo", {"similarTo": post})):
                    async with db.session() as s:
                        started = time.perf_counter()
                        await service.search_content(s, SearchContentIn(**body, **flt),
                                                     now=datetime.now(UTC), settings=settings)
                        ms = (time.perf_counter() - started) * 1000
                        times[kind].append(ms)
                        per_filter.setdefault(f"{kind} {json.dumps(flt)}", []).append(ms)
                if n >= recall:
                    continue
                # recall@10 of the filtered nearest-neighbour read for the query's vector
                qvec = embeddings.query_vector(model, words.meaning_text(query))
                f = replace(service.content_filter(SearchContentIn(**flt), datetime.now(UTC)),
                            query=None)
                stmt = semantic._ranked(semantic._nearest(f, model.dims)).subquery()
                top = (select(stmt.c.id, stmt.c.similarity)
                       .order_by(stmt.c.similarity.desc(), stmt.c.id).limit(10))
                params = {**semantic.post_params(f), "qvec": qvec, "model": model.key}
                async with db.session() as s:
                    await semantic.read_settings(s, model.key)
                    ann = [r[1] for r in await s.execute(top, params)]
                    await s.execute(text("SET enable_indexscan = off"))
                    await s.execute(text("SET enable_bitmapscan = off"))
                    exact = [r[1] for r in await s.execute(top, params)]
                if exact:
                    # Ties count: simulated captions repeat, and posts with the same text
                    # have the same vector, so "the" exact top 10 is one of several. A
                    # found post is right when it is at least as near as the 10th.
                    found = sum(1 for sim in ann[: len(exact)] if sim >= exact[-1] - 1e-6)
                    recalls.setdefault(json.dumps(flt), []).append(found / len(exact))
    finally:
        await db.dispose()
    return {
        **{f"direct_{k}_p50_ms": round(_pct(v, 0.5), 1) for k, v in times.items()},
        **{f"direct_{k}_p95_ms": round(_pct(v, 0.95), 1) for k, v in times.items()},
        "direct_per_filter_p50_p95_ms": {
            k: [round(_pct(v, 0.5), 1), round(_pct(v, 0.95), 1)] for k, v in per_filter.items()},
        "recallAt10": (round(statistics.mean(r for v in recalls.values() for r in v), 3)
                       if recalls else None),
        "recallAt10PerFilter": {k: round(statistics.mean(v), 3) for k, v in recalls.items()},
        "recallSamples": sum(map(len, recalls.values())),
    }


def _http(base: str, key: str, posts: list[str]) -> dict[str, Any]:
    from semantic import QUERIES

    times: dict[str, list[float]] = {"semantic": [], "similarTo": []}
    per_filter: dict[str, list[float]] = {}
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"},
                      timeout=60) as c:
        for flt in FILTERS:
            for (query, _), post in zip(QUERIES, posts, strict=False):
                for kind, body in (("semantic", {"query": query, "semantic": True}),
                                   ("similarTo", {"similarTo": post})):
                    started = time.perf_counter()
                    r = c.post("/api/v1/search/content", json={**body, **flt})
                    ms = (time.perf_counter() - started) * 1000
                    times[kind].append(ms)
                    per_filter.setdefault(f"{kind} {json.dumps(flt)}", []).append(ms)
                    assert r.status_code == 200, r.text
    return {**{f"http_{k}_p50_ms": round(_pct(v, 0.5), 1) for k, v in times.items()},
            **{f"http_{k}_p95_ms": round(_pct(v, 0.95), 1) for k, v in times.items()},
            "http_per_filter_p50_p95_ms": {
                k: [round(_pct(v, 0.5), 1), round(_pct(v, 0.95), 1)]
                for k, v in per_filter.items()}}


def main() -> None:
    import search as bench_search
    import search_world

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", default="/tmp/sors-bench1m")
    ap.add_argument("--admin-url", default=None)
    ap.add_argument("--database", default="sors_bench")
    ap.add_argument("--recall-queries", type=int, default=50,
                    help="queries per filter set in the recall pass (its exact searches take "
                         "~25 min for all 50; 0: latency only)")
    ap.add_argument("--rebuild-index", action="store_true",
                    help="drop the model's index over all vectors and time its build again "
                         "(when every post already has a vector)")
    args = ap.parse_args()
    admin = search_world.admin_url(args)
    url = search_world.db_url(admin, args.database).replace(
        "postgresql://", "postgresql+psycopg://", 1)
    settings = search_world._settings(url, args.data_dir)
    from sors.kit import migrate

    migrate.upgrade(url)
    report: dict[str, Any] = asyncio.run(_embed_all(url, settings, rebuild=args.rebuild_index))

    async def sample() -> list[str]:
        from sqlalchemy import text

        from sors.kit.db import Database, make_engine

        db = Database(make_engine(settings, url))
        async with db.session() as s:
            ids = [r[0] for r in await s.execute(text(
                "SELECT post_id FROM post_embeddings TABLESAMPLE SYSTEM (1) LIMIT 2000"))]
        await db.dispose()
        return random.Random(5).sample(ids, 50)

    posts = asyncio.run(sample())
    import psycopg

    from sors.catalog.vectors import embeddings
    from sors.catalog.vectors.schema import index_slug

    model = embeddings.embedder_or_none(settings)
    assert model is not None
    slug = index_slug(model.key, 40)
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1)) as conn:
        bench_search._prewarm(conn)  # posts and their indexes, as a server answering a while
        # The current model's indexes: the one over all its vectors and the subsets' HNSW.
        conn.execute("SELECT pg_prewarm('post_embeddings'),"
                     " pg_prewarm((SELECT index_name FROM embedding_backfill"
                     "             WHERE model = %(m)s)),"
                     " pg_prewarm('post_embeddings_hot'),"
                     " pg_prewarm(to_regclass(%(hot)s)),"
                     " pg_prewarm('post_embeddings_recent'),"
                     " pg_prewarm(to_regclass(%(recent)s))",
                     {"m": model.key, "hot": f"ix_post_embeddings_hot_hnsw_{slug}",
                      "recent": f"ix_post_embeddings_recent_hnsw_{slug}"}).fetchall()
    report["model"] = model.key
    report["load"] = round(os.getloadavg()[0], 2)
    report.update(asyncio.run(_direct_and_recall(url, settings, posts,
                                                 recall=args.recall_queries)))
    key = asyncio.run(bench_search._account(url, args.data_dir))
    port = bench_search._free_port()
    # The server runs the simulated source, whose clock is the world's (the build's moment);
    # the in-process pass reads the real clock, as a live server does. For the same time
    # frames on both sides the world's clock reads now while the server runs.
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(plain, autocommit=True) as conn:
        world_now = conn.execute("SELECT now FROM sim_state WHERE key = 'world'").fetchone()
        conn.execute("UPDATE sim_state SET now = now() WHERE key = 'world'")
    server = bench_search._start_server(url, args.data_dir, port)
    try:
        _http(f"http://127.0.0.1:{port}", key, posts[:5])  # warm
        report.update(_http(f"http://127.0.0.1:{port}", key, posts))
    finally:
        server.terminate()
        if world_now is not None:
            with psycopg.connect(plain, autocommit=True) as conn:
                conn.execute("UPDATE sim_state SET now = %s WHERE key = 'world'", world_now)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
