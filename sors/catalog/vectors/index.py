"""The index over every post vector of a model: IVFFlat (pgvector), trained on the vectors
stored, rebuilt as they grow.

Why not HNSW here (the subsets `post_embeddings_hot` and `_recent` keep it): a query far
from every post ("muscle building program": nearest similarity 0.39, and "program" also
points at the programming posts) sends HNSW's greedy walk into the wrong region, and it never
comes back at any `ef_search` (recall@10 0.88-0.92 at a million posts). An inverted-file
index compares the query with every list's centroid exactly and reads the nearest lists: all
of the true ten with 20 of 1,000 lists, in about 8 ms (docs/PERFORMANCE.md, "Search by
meaning"). Inserting into it is one centroid comparison instead of an HNSW graph insert.

Its lists are fixed when it is built, so it is built once there are TRAIN_AT vectors of the
model and rebuilt (CONCURRENTLY, by a `vector_index` job the scheduler queues) each time
they have grown GROWTH-fold since. Below TRAIN_AT a search reads every vector: exact, and a
few milliseconds at that size. How many lists a search reads (`ivfflat.probes`) follows from
the recorded list count in `catalog.semantic`.
"""

from __future__ import annotations

import math
import time
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.vectors.schema import index_slug
from sors.kit.db import Database

TRAIN_AT = 10_000
GROWTH = 2
# Memory for the build's k-means sample (lists x 50 vectors): 50 MB at 1,000 lists of 256
# dimensions; the server default (64 MB) is close to that.
BUILD_MEMORY = "512MB"
_LOCK = 0x5052_5302  # with hashtext(model): one build per model at a time, whoever runs it
PREFIX = "ix_post_embeddings_ivf_"


def lists_for(rows: int) -> int:
    """pgvector's guidance: a list per thousand vectors up to a million, then their square
    root; at least 10."""
    return max(10, rows // 1000) if rows <= 1_000_000 else math.isqrt(rows)


_STATE = text("""
SELECT (SELECT count(*) FROM post_embeddings WHERE model = :model) AS vectors,
       b.index_name, b.index_lists, b.index_rows, b.index_built_at,
       to_regclass(b.index_name) IS NOT NULL AS present
  FROM (SELECT 1) one
  LEFT JOIN embedding_backfill b ON b.model = :model
""")


async def _state(session: AsyncSession, model_key: str) -> Any:
    """The model's vectors (counted: 60-85 ms at a million) and its recorded index."""
    return (await session.execute(_STATE, {"model": model_key})).one()


def _next_build_at(state: Any, train_at: int | None = None) -> int:
    """The vector count at which the index is (re)built: `train_at` (default TRAIN_AT) while
    there is none (or it is gone), then GROWTH times what it was built on."""
    trained = (state.index_rows or 0) if state.present else 0
    return max(TRAIN_AT if train_at is None else train_at, GROWTH * trained)


async def due(session: AsyncSession, model_key: str, *, train_at: int | None = None) -> bool:
    """Whether the model's index should be (re)built now."""
    state = await _state(session, model_key)
    return state.vectors >= _next_build_at(state, train_at)


# The scheduler asks at most this often per process (a rebuild minutes late costs nothing).
CHECK_EVERY = 300.0
_asked: dict[str, float] = {}


async def due_now(session: AsyncSession, model_key: str) -> bool:
    """`due`, asked at most every CHECK_EVERY seconds per model (False in between)."""
    if time.monotonic() - _asked.get(model_key, -math.inf) < CHECK_EVERY:
        return False
    _asked[model_key] = time.monotonic()
    return await due(session, model_key)


async def describe(session: AsyncSession, model_key: str) -> dict[str, object]:
    """For the operator (`sors catalog status`): the model's vectors, the posts waiting to
    be embedded, its index and when the next (re)build is due."""
    r = await _state(session, model_key)
    pending = (await session.execute(text("SELECT count(*) FROM post_embeddings_pending"))
               ).scalar_one()
    index = None
    if r.present:
        index = {"name": r.index_name, "lists": r.index_lists, "builtOnVectors": r.index_rows,
                 "builtAt": r.index_built_at.isoformat() if r.index_built_at else None}
    return {"model": model_key, "vectors": r.vectors, "waitingToEmbed": pending,
            "index": index, "nextBuildAtVectors": _next_build_at(r)}


_RECORD = text("""
INSERT INTO embedding_backfill (model, index_name, index_lists, index_rows, index_built_at)
VALUES (:model, :name, :lists, :rows, now())
ON CONFLICT (model) DO UPDATE SET index_name = EXCLUDED.index_name,
    index_lists = EXCLUDED.index_lists, index_rows = EXCLUDED.index_rows,
    index_built_at = EXCLUDED.index_built_at
""")


async def train(db: Database, model_key: str, dims: int, *,
                train_at: int | None = None) -> dict[str, object]:
    """Build the model's index when `due`, CONCURRENTLY (writes go on), record it, then drop
    the one it replaces. What was done, for the job's result."""
    async with db.engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        lock = {"k": _LOCK, "m": model_key}
        if not (await conn.execute(text("SELECT pg_try_advisory_lock(:k, hashtext(:m))"),
                                   lock)).scalar():
            return {"built": False, "reason": "another build of this model is running"}
        try:
            return await _build(conn, model_key, int(dims), train_at)
        finally:
            await conn.execute(text("RESET maintenance_work_mem"))
            await conn.execute(text("SELECT pg_advisory_unlock(:k, hashtext(:m))"), lock)


async def _build(
    conn: Any, model_key: str, dims: int, train_at: int | None
) -> dict[str, object]:
    session = AsyncSession(bind=conn)
    try:
        state = await _state(session, model_key)
    finally:
        await session.close()
    if state.vectors < _next_build_at(state, train_at):
        return {"built": False, "reason": "not due"}
    rows, old = state.vectors, state.index_name
    slug = index_slug(model_key, 24)
    # A build that stopped half way leaves an invalid index behind: it goes first.
    for (name,) in (await conn.execute(text("""
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = 'post_embeddings'::regclass AND NOT i.indisvalid
               AND starts_with(c.relname, :prefix)"""), {"prefix": f"{PREFIX}{slug}_"})).all():
        await conn.exec_driver_sql(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')
    lists = lists_for(rows)
    name = f"{PREFIX}{slug}_{_base36(time.time_ns() // 1_000_000)}"
    quoted = model_key.replace("'", "''")
    started = time.perf_counter()
    await conn.exec_driver_sql(f"SET maintenance_work_mem = '{BUILD_MEMORY}'")
    await conn.exec_driver_sql(
        f'CREATE INDEX CONCURRENTLY "{name}" ON post_embeddings USING ivfflat '
        f"((embedding::halfvec({dims})) halfvec_cosine_ops) WITH (lists = {lists}) "
        f"WHERE model = '{quoted}'")
    await conn.execute(_RECORD, {"model": model_key, "name": name, "lists": lists, "rows": rows})
    if old and old != name:
        await conn.exec_driver_sql(f'DROP INDEX CONCURRENTLY IF EXISTS "{old}"')
    return {"built": True, "index": name, "lists": lists, "vectors": rows,
            "seconds": round(time.perf_counter() - started, 1), "replaced": old}


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"
