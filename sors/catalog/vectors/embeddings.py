"""Post embeddings: written set-based beside ingest (new posts, edited captions) and when a
transcript arrives; read by search by meaning (`catalog.semantic`).

The text of a post is its caption (YouTube: title and description), then its transcript and
on-screen text when they exist. Vectors travel to PostgreSQL as pgvector's text form in one
array per statement, like every other ingest write. Where pgvector is missing the table does
not exist: writes are skipped and semantic searches answer 503 `semantic_unavailable`.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

import numpy as np
import structlog
from psycopg import ProgrammingError
from psycopg.adapt import Dumper, PyFormat
from psycopg.pq import Format
from psycopg.types import TypeInfo
from sqlalchemy import CursorResult, text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.vectors import pool
from sors.catalog.vectors.embedder import Embedder, EmbedderUnavailable, get_embedder
from sors.catalog.vectors.schema import HOT_POSTS, RECENT_DAYS, RECENT_POSTS, index_statements
from sors.config import Settings
from sors.kit.db import binary_sql, driver, execute_rows

log = structlog.get_logger(__name__)

# Characters of a post's text that are kept for embedding (the opening says what the post is
# about, and the bound keeps the work per post bounded); a model may read fewer
# (`Embedder.max_chars`).
MAX_CHARS = 2000


# Every written vector goes to the subsets its post belongs to, in the same statement.
_WRITE = binary_sql(text(f"""
WITH written AS (
    INSERT INTO post_embeddings (post_id, model, embedding, embedded_at)
    SELECT u.id, u.model, u.vec, now()
      FROM unnest(CAST(:id AS text[]), CAST(:model AS text[]), CAST(:vec AS vector[]))
           AS u(id, model, vec)
      JOIN posts p ON p.id = u.id
    ON CONFLICT (post_id) DO UPDATE
       SET model = EXCLUDED.model, embedding = EXCLUDED.embedding, embedded_at = now()
    RETURNING post_id, model, embedding
),
hot AS (
    INSERT INTO post_embeddings_hot (post_id, model, embedding)
    SELECT w.post_id, w.model, w.embedding
      FROM written w JOIN posts p ON p.id = w.post_id
     WHERE {HOT_POSTS}
    ON CONFLICT (post_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding
)
INSERT INTO post_embeddings_recent (post_id, model, embedding, published_at)
SELECT w.post_id, w.model, w.embedding, p.published_at
  FROM written w JOIN posts p ON p.id = w.post_id
 WHERE {RECENT_POSTS}
ON CONFLICT (post_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding
"""))
_SWEEP_RECENT = text(f"""
DELETE FROM post_embeddings_recent
 WHERE published_at <= now() - interval '{RECENT_DAYS} days'
""")
# Ingest only names the posts to (re-)embed: embedding their text and keeping the vector indexes
# current cost more than the rest of ingest (docs/PERFORMANCE.md), so the scheduler pays
# that a batch per tick, off the crawl's transaction (`embed_pending`).
_ENQUEUE = binary_sql(text("""
INSERT INTO post_embeddings_pending (post_id, queued_at)
SELECT u.id, now() FROM unnest(CAST(:ids AS text[])) AS u(id)
ON CONFLICT (post_id) DO UPDATE SET queued_at = now()
"""))
_TAKE_PENDING = text("""
DELETE FROM post_embeddings_pending
 WHERE post_id IN (SELECT post_id FROM post_embeddings_pending ORDER BY queued_at, post_id
                    LIMIT :n FOR UPDATE SKIP LOCKED)
RETURNING post_id
""")


async def enqueue(session: AsyncSession, post_ids: Sequence[str]) -> None:
    """Name posts whose vector must be (re)made, in the caller's transaction."""
    if post_ids and await available(session):
        await execute_rows(session, _ENQUEUE, {"ids": list(post_ids)})


async def embed_pending(session: AsyncSession, settings: Settings, *, limit: int = 20_000) -> int:
    """Embed up to `limit` named posts (the oldest named first) with the model `settings`
    name and put their vectors under the search index; how many were taken."""
    if not await available(session):
        return 0
    ids = [r[0] for r in await session.execute(_TAKE_PENDING, {"n": limit})]
    if ids:
        await refresh_now(session, settings, ids)
    return len(ids)

_TEXTS = binary_sql(text("""
SELECT p.id, p.platform, p.caption, p.extra ->> 'description', t.text, v.on_screen_text
  FROM unnest(CAST(:ids AS text[])) AS u(id)
  JOIN posts p ON p.id = u.id
  LEFT JOIN transcripts t ON t.post_id = p.id
  LEFT JOIN visual_analyses v ON v.post_id = p.id
"""))

_available: dict[str, bool] = {}


async def available(session: AsyncSession) -> bool:
    """Whether this database has the embeddings table (pgvector installed), asked once per
    database per process."""
    url = str(session.bind.url) if session.bind is not None else ""
    if url not in _available:
        found = await session.scalar(text("SELECT to_regclass('post_embeddings') IS NOT NULL"))
        _available[url] = bool(found)
    return _available[url]


# Iterative index scans (a filtered read that goes on until enough rows pass) and the
# half-precision indexes arrived in pgvector 0.8.
MIN_PGVECTOR = (0, 8)
_versions: dict[str, str] = {}


async def too_old(session: AsyncSession) -> str | None:
    """The installed pgvector's version when it is older than MIN_PGVECTOR (searches by
    meaning cannot run), else None; asked once per database per process."""
    url = str(session.bind.url) if session.bind is not None else ""
    if url not in _versions:
        _versions[url] = str(await session.scalar(text(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'")) or "")
    version = _versions[url]
    try:
        found = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return None  # a version string of another form: let the server answer
    return version if found < MIN_PGVECTOR else None


def forget_availability() -> None:
    _available.clear()
    _versions.clear()
    _indexed.clear()


def embedder_or_none(settings: Settings) -> Embedder | None:
    try:
        return get_embedder(settings)
    except EmbedderUnavailable as exc:
        log.warning("embeddings_unavailable: %s", exc)
        return None


def post_text(caption: str | None, *extra: str | None) -> str:
    return " \n".join(t for t in (caption, *extra) if t)[:MAX_CHARS]


def query_vector(model: Embedder, text_: str) -> str | None:
    """pgvector's text form of one text's vector; None when the model knows none of its
    words (a zero vector is no direction to compare)."""
    if not text_.strip():
        return None
    row = model.embed([text_])[0]
    if not np.isfinite(row).all() or not np.abs(row).sum():
        return None
    return as_pgvector(row[None, :])[0]


def as_pgvector(rows: np.ndarray) -> list[str]:
    """pgvector's text form, for the one vector of a query."""
    return ["[" + ",".join(f"{x:.6g}" for x in row) + "]" for row in rows]


class _Vector:
    """One embedding on its way to pgvector in its binary form (two 16-bit words, the
    dimension and 0, then big-endian float32s): formatting hundreds of floats as text per post
    would cost more than embedding them."""

    __slots__ = ("row",)

    def __init__(self, row: np.ndarray) -> None:
        self.row = row


class _VectorDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: _Vector) -> bytes:
        row = obj.row
        return struct.pack(">HH", row.shape[0], 0) + row.astype(">f4").tobytes()


async def _vectors_for(session: AsyncSession) -> None:
    """Teach the session's connection `_Vector` (once per connection: the type's id is the
    database's)."""
    pg = await driver(session)
    try:
        pg.adapters.get_dumper(_Vector, PyFormat.BINARY)
        return
    except ProgrammingError:
        pass
    info = await TypeInfo.fetch(pg, "vector")
    if info is None:
        raise RuntimeError("the vector type is missing")
    info.register(pg)
    pg.adapters.register_dumper(_Vector, type("VectorDumper", (_VectorDumper,), {"oid": info.oid}))


_indexed: set[tuple[str, str]] = set()


async def _indexes_for(session: AsyncSession, model: Embedder) -> None:
    """The subsets' indexes of the model, made before its first vector is written (asked once
    per database and model per process; the migrations made wordllama's)."""
    url = str(session.bind.url) if session.bind is not None else ""
    if (url, model.key) in _indexed:
        return
    if model.key != "wordllama:256":
        for statement in index_statements(model.key, model.dims):
            await session.execute(text(statement))
    _indexed.add((url, model.key))


async def write(session: AsyncSession, settings: Settings, texts: Mapping[str, str]) -> int:
    """Embed and store `{post_id: text}` in the caller's transaction with the model
    `settings` name; how many were written (0 where pgvector or the model is missing)."""
    texts = {k: v for k, v in texts.items() if v and v.strip()}  # nothing said: no vector
    if not texts or not await available(session):
        return 0
    model = embedder_or_none(settings)
    if model is None:
        return 0
    ids = list(texts)
    vectors = await pool.embed(model, settings, [texts[i][: model.max_chars] for i in ids])
    # Text of no known word embeds to a zero vector (its norm divides by 0): no vector either.
    finite = np.isfinite(vectors).all(axis=1) & (np.abs(vectors).sum(axis=1) > 0)
    ids = [i for i, ok in zip(ids, finite, strict=True) if ok]
    vectors = vectors[finite]
    if not ids:
        return 0
    await _indexes_for(session, model)
    await _vectors_for(session)
    await execute_rows(session, _WRITE, {
        "id": ids, "model": [model.key] * len(ids), "vec": [_Vector(v) for v in vectors],
    })
    return len(ids)


async def sweep_recent(session: AsyncSession) -> int:
    """The recent vectors of posts no longer recent, taken out; how many."""
    if not await available(session):
        return 0
    result = await session.execute(_SWEEP_RECENT)
    return result.rowcount if isinstance(result, CursorResult) else 0


async def refresh(session: AsyncSession, post_ids: Sequence[str]) -> None:
    """A transcript or on-screen text arrived: the posts are named for re-embedding."""
    await enqueue(session, post_ids)


async def refresh_now(session: AsyncSession, settings: Settings, post_ids: Sequence[str]) -> int:
    """Embed posts now from everything stored about them."""
    if not post_ids or not await available(session):
        return 0
    rows = await execute_rows(session, _TEXTS, {"ids": list(post_ids)})
    return await write(session, settings, {
        r[0]: post_text(r[2], r[3] if r[1] == "youtube" else None, r[5], r[4]) for r in rows
    })


# ---- the background re-embedding (older posts, a model change) ------------------------

_BACKFILL_STATE = text("""
INSERT INTO embedding_backfill (model) VALUES (:model) ON CONFLICT (model) DO NOTHING;
""")
_BACKFILL_BATCH = binary_sql(text("""
SELECT p.id, p.platform, p.caption, p.extra ->> 'description', t.text, v.on_screen_text
  FROM posts p
  LEFT JOIN post_embeddings e ON e.post_id = p.id AND e.model = :model
  LEFT JOIN post_embeddings_pending q ON q.post_id = p.id
  LEFT JOIN transcripts t ON t.post_id = p.id
  LEFT JOIN visual_analyses v ON v.post_id = p.id
 WHERE p.id > :cursor AND e.post_id IS NULL AND q.post_id IS NULL
 ORDER BY p.id
 LIMIT :n
"""))


async def backfill(session: AsyncSession, settings: Settings, *, limit: int) -> int:
    """Embed up to `limit` posts that have no vector of the current model (the one
    `settings` name; stored before search by meaning existed, or before a model change), in
    post id order from where the last call stopped; once a pass finds none left, later calls
    cost one row read."""
    if limit <= 0 or not await available(session):
        return 0
    model = embedder_or_none(settings)
    if model is None:
        return 0
    await _indexes_for(session, model)
    await session.execute(_BACKFILL_STATE, {"model": model.key})
    cursor, done = (await session.execute(text(
        "SELECT cursor, done FROM embedding_backfill WHERE model = :model"),
        {"model": model.key})).one()
    if done:
        return 0
    rows = await execute_rows(session, _BACKFILL_BATCH,
                              {"model": model.key, "cursor": cursor, "n": limit})
    written = await write(session, settings, {
        r[0]: post_text(r[2], r[3] if r[1] == "youtube" else None, r[5], r[4]) for r in rows
    })
    await session.execute(text(
        "UPDATE embedding_backfill SET cursor = :c, done = :d WHERE model = :model"),
        {"c": rows[-1][0] if rows else cursor, "d": len(rows) < limit, "model": model.key})
    return written
