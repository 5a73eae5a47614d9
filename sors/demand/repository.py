"""Every query of the demand feature: comments in (set-based, one statement per batch),
their texts' vectors, a scope's asking comments grouped by text, the posts nearest a
cluster by meaning, one post's comments."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.db import binary_sql, execute_rows, fetch_all, sql_for_shape

_POSTS = binary_sql(text("""
SELECT u.platform, u.ppid, p.id, p.profile_id
  FROM unnest(CAST(:platform AS text[]), CAST(:ppid AS text[])) AS u(platform, ppid)
  JOIN posts p ON p.platform = u.platform AND p.platform_post_id = u.ppid
"""))


async def posts_of(
    session: AsyncSession, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, str]]:
    """(platform, platform post id) → (post id, profile id) for the posts the catalog has."""
    if not keys:
        return {}
    rows = await execute_rows(session, _POSTS, {
        "platform": [k[0] for k in keys], "ppid": [k[1] for k in keys]})
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


# One statement per batch. A comment seen again is rewritten only when something about it
# changed (so importing a file twice changes nothing, not even `updated_at`); a label a
# language model chose stays while the text does.
_UPSERT = binary_sql(text("""
INSERT INTO comments AS c (id, post_id, profile_id, platform, platform_comment_id,
       parent_platform_id, text, author_handle, likes, replies, published_at,
       published_known, language, kind, noise, labelled_by, text_hash, source, first_seen_at,
       updated_at)
SELECT u.*, CAST(:now AS timestamptz), CAST(:now AS timestamptz)
  FROM unnest(CAST(:id AS text[]), CAST(:post AS text[]), CAST(:profile AS text[]),
              CAST(:platform AS text[]), CAST(:cid AS text[]), CAST(:parent AS text[]),
              CAST(:text AS text[]), CAST(:author AS text[]), CAST(:likes AS bigint[]),
              CAST(:replies AS bigint[]), CAST(:published AS timestamptz[]),
              CAST(:known AS boolean[]), CAST(:lang AS text[]), CAST(:kind AS text[]),
              CAST(:noise AS text[]), CAST(:by AS text[]), CAST(:hash AS bytea[]),
              CAST(:source AS text[])) AS u
ON CONFLICT (platform, platform_comment_id) DO UPDATE SET
       parent_platform_id = coalesce(EXCLUDED.parent_platform_id, c.parent_platform_id),
       text = EXCLUDED.text,
       author_handle = coalesce(EXCLUDED.author_handle, c.author_handle),
       likes = coalesce(EXCLUDED.likes, c.likes),
       replies = coalesce(EXCLUDED.replies, c.replies),
       published_at = CASE WHEN EXCLUDED.published_known THEN EXCLUDED.published_at
                           ELSE c.published_at END,
       published_known = c.published_known OR EXCLUDED.published_known,
       language = coalesce(EXCLUDED.language, c.language),
       kind = CASE WHEN c.labelled_by = 'llm' AND c.text = EXCLUDED.text THEN c.kind
                   ELSE EXCLUDED.kind END,
       labelled_by = CASE WHEN c.labelled_by = 'llm' AND c.text = EXCLUDED.text THEN 'llm'
                          ELSE EXCLUDED.labelled_by END,
       noise = EXCLUDED.noise,
       text_hash = EXCLUDED.text_hash,
       updated_at = EXCLUDED.updated_at
 WHERE (c.text, c.likes, c.replies, c.author_handle, c.noise, c.parent_platform_id,
        c.language, c.published_at, c.kind)
       IS DISTINCT FROM
       (EXCLUDED.text, coalesce(EXCLUDED.likes, c.likes), coalesce(EXCLUDED.replies, c.replies),
        coalesce(EXCLUDED.author_handle, c.author_handle), EXCLUDED.noise,
        coalesce(EXCLUDED.parent_platform_id, c.parent_platform_id),
        coalesce(EXCLUDED.language, c.language),
        CASE WHEN EXCLUDED.published_known THEN EXCLUDED.published_at ELSE c.published_at END,
        CASE WHEN c.labelled_by = 'llm' AND c.text = EXCLUDED.text THEN c.kind
             ELSE EXCLUDED.kind END)
RETURNING (xmax = 0) AS inserted
"""))


async def upsert(session: AsyncSession, columns: Mapping[str, Sequence[object]],
                 now: datetime) -> tuple[int, int]:
    """Write a batch (`columns`: one array per statement parameter); (new, updated)."""
    rows = await execute_rows(session, _UPSERT, {**columns, "now": now})
    new = sum(1 for r in rows if r[0])
    return new, len(rows) - new


_HAVE_VECTORS = binary_sql(text("""
SELECT v.text_hash FROM comment_vectors v
 WHERE v.model = :model AND v.text_hash = ANY(CAST(:hash AS bytea[]))
"""))
_WRITE_VECTORS = binary_sql(text("""
INSERT INTO comment_vectors (model, text_hash, vector)
SELECT :model, u.h, u.v FROM unnest(CAST(:hash AS bytea[]), CAST(:vec AS bytea[])) AS u(h, v)
ON CONFLICT (model, text_hash) DO NOTHING
"""))
_UNEMBEDDED = text("""
SELECT DISTINCT ON (c.text_hash) c.text_hash, c.text FROM comments c
 WHERE c.noise IS NULL AND NOT EXISTS (
       SELECT 1 FROM comment_vectors v WHERE v.model = :model AND v.text_hash = c.text_hash)
 ORDER BY c.text_hash LIMIT :n
""")


async def hashes_with_vectors(session: AsyncSession, model: str,
                              hashes: Sequence[bytes]) -> set[bytes]:
    if not hashes:
        return set()
    rows = await execute_rows(session, _HAVE_VECTORS, {"model": model, "hash": list(hashes)})
    return {bytes(r[0]) for r in rows}


async def write_vectors(session: AsyncSession, model: str,
                        vectors: Mapping[bytes, bytes]) -> None:
    if vectors:
        await execute_rows(session, _WRITE_VECTORS, {
            "model": model, "hash": list(vectors), "vec": list(vectors.values())})


async def unembedded(session: AsyncSession, model: str, limit: int) -> list[tuple[bytes, str]]:
    rows = (await session.execute(_UNEMBEDDED, {"model": model, "n": limit})).all()
    return [(bytes(h), t) for h, t in rows]


@dataclass(frozen=True, slots=True)
class Scope:
    """Which comments a demand search reads (each given filter narrows it)."""

    kinds: Sequence[str]
    category_ids: Sequence[str] | None = None
    profile_id: str | None = None
    board_id: str | None = None
    account_id: str | None = None  # the board's owner
    post_ids: Sequence[str] | None = None
    platforms: Sequence[str] | None = None
    since: datetime | None = None


def _conditions(s: Scope) -> list[str]:
    conds = ["c.noise IS NULL", "c.kind = ANY(CAST(:kinds AS text[]))"]
    if s.category_ids is not None:
        conds.append("c.profile_id IN (SELECT f.profile_id FROM profile_categories f "
                     "WHERE f.category_id = ANY(CAST(:cats AS text[])))")
    if s.profile_id is not None:
        conds.append("c.profile_id = :profile")
    if s.board_id is not None:
        on_board = ("SELECT {col} FROM board_items i JOIN boards b ON b.id = i.board_id "
                    "WHERE b.id = :board AND b.account_id = :account AND i.{col} IS NOT NULL")
        conds.append(f"(c.post_id IN ({on_board.format(col='post_id')}) OR "
                     f"c.profile_id IN ({on_board.format(col='profile_id')}))")
    if s.post_ids is not None:
        conds.append("c.post_id = ANY(CAST(:posts AS text[]))")
    if s.platforms:
        conds.append("c.platform = ANY(CAST(:platforms AS text[]))")
    if s.since is not None:
        conds.append("c.published_at >= :since")
    return conds


def _params(s: Scope) -> dict[str, object]:
    params: dict[str, object] = {"kinds": list(s.kinds)}
    optional = {"cats": s.category_ids, "profile": s.profile_id, "board": s.board_id,
                "account": s.account_id if s.board_id is not None else None, "posts": s.post_ids,
                "platforms": s.platforms or None, "since": s.since}
    params.update({k: list(v) if isinstance(v, (list, tuple)) else v
                   for k, v in optional.items() if v is not None})
    return params


# A scope's asking comments, one row per distinct text (the most repeated and liked first,
# at most :texts), each with its comments' ids, posts, likes and kinds in likes order and
# its vector under the model; and the scope's totals.
_TEXTS = """
WITH m AS MATERIALIZED (
    SELECT c.id, c.post_id, coalesce(c.likes, 0) AS likes, c.kind, c.text, c.text_hash
      FROM comments c WHERE {conds}
),
g AS (
    SELECT m.text_hash, count(*) AS n, sum(m.likes) AS likes, min(m.text) AS text,
           array_agg(m.id ORDER BY m.likes DESC, m.id) AS ids,
           array_agg(m.post_id ORDER BY m.likes DESC, m.id) AS posts,
           array_agg(m.likes ORDER BY m.likes DESC, m.id) AS each_likes,
           array_agg(m.kind ORDER BY m.likes DESC, m.id) AS kinds
      FROM m GROUP BY m.text_hash
     ORDER BY count(*) DESC, sum(m.likes) DESC, min(m.id) LIMIT :texts
)
SELECT g.*, v.vector, t.comments, t.texts
  FROM g LEFT JOIN comment_vectors v ON v.model = :model AND v.text_hash = g.text_hash
 CROSS JOIN (SELECT count(*) AS comments, count(DISTINCT text_hash) AS texts FROM m) t
 ORDER BY g.n DESC, g.likes DESC, g.ids[1]
"""


async def scope_texts(session: AsyncSession, scope: Scope, model: str,
                      texts: int) -> list[dict[str, Any]]:
    shape = ("demand_texts", *(k for k, v in _params(scope).items()))
    sql = sql_for_shape(shape, lambda: text(_TEXTS.format(conds=" AND ".join(
        _conditions(scope)))))
    return await fetch_all(session, sql, {**_params(scope), "model": model, "texts": texts})


_SAFE_KEY = re.compile(r"^[\w:./-]+$")
# Lists read per nearest-post lookup. `covered` compares one similarity with a threshold the
# planted questions clear by 0.15 or more: at 60k posts (59 lists), 5 lists found the exact
# nearest post 47 times in 50 (10 lists: 47; the rest off by 0.036 at most) in half the
# time (5.6 ms a cluster against 11; docs/PERFORMANCE.md).
_PROBES = text("""
SELECT set_config('ivfflat.probes', greatest(5, coalesce((SELECT index_lists / 100
         FROM embedding_backfill WHERE model = :model), 0))::text, true)
""")
_NEAREST = """
SELECT q.i, n.post_id, n.similarity, p.url, p.platform, r.handle
  FROM unnest(CAST(%(vecs)s AS halfvec({dims})[])) WITH ORDINALITY AS q(v, i)
 CROSS JOIN LATERAL (
       SELECT e.post_id, 1 - ((e.embedding::halfvec({dims})) <=> q.v) AS similarity
         FROM post_embeddings e
        WHERE e.model = '{model}'
        ORDER BY (e.embedding::halfvec({dims})) <=> q.v
        LIMIT %(k)s) n
  JOIN posts p ON p.id = n.post_id AND p.deleted_at IS NULL
  JOIN profiles r ON r.id = p.profile_id
 ORDER BY q.i, n.similarity DESC
"""


async def nearest_posts(session: AsyncSession, model: str, dims: int,
                        vectors: Sequence[str], k: int) -> list[dict[str, Any]]:
    """The `k` posts nearest each vector (pgvector's text form) under `model`, by cosine
    similarity: the model as a literal, so the planner can use its partial IVFFlat index;
    the vectors parsed once (a cast inside the scan parsed the text again for every row:
    0.8 s a vector over 3,600 posts, against 19 ms)."""
    if not vectors or not _SAFE_KEY.match(model):
        return []
    await session.execute(_PROBES, {"model": model})
    sql = _NEAREST.format(model=model, dims=int(dims))
    return await fetch_all(session, sql, {"vecs": list(vectors), "k": k})


_POST_TEXTS = """
SELECT c.id, c.text, coalesce(c.likes, 0) AS likes, c.kind, c.text_hash, v.vector
  FROM comments c
  LEFT JOIN comment_vectors v ON v.model = %(model)s AND v.text_hash = c.text_hash
 WHERE c.post_id = %(post)s AND c.noise IS NULL AND c.kind = ANY(%(kinds)s)
 ORDER BY c.likes DESC NULLS LAST, c.id LIMIT 2000
"""


async def post_texts(session: AsyncSession, post_id: str, model: str,
                     kinds: Sequence[str]) -> list[dict[str, Any]]:
    return await fetch_all(session, _POST_TEXTS,
                           {"post": post_id, "model": model, "kinds": list(kinds)})


_POST_INFO = """
SELECT p.id, p.url, p.platform, r.handle FROM posts p JOIN profiles r ON r.id = p.profile_id
 WHERE p.id = ANY(%(ids)s)
"""


async def post_info(session: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    return {r["id"]: r for r in await fetch_all(session, _POST_INFO, {"ids": list(ids)})}
