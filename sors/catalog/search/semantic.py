"""Search by meaning: the posts nearest the query's vector, reordered by the query's words
(`semantic`), and posts nearest a post (`similarTo`), with every post filter of a search
applied.

`semantic`: the candidates are the MEANING_DEPTH posts nearest the query vector that pass the
filters (and hold every phrase the query quotes); a word never brings in a post the meaning
did not find. Each candidate's relevance is its similarity plus WORD_WEIGHT times the share of
the query's word weight it holds (each word weighing its inverse document frequency in this
catalog: catalog.search.words), so "students" counts for little beside the meaning while a
rare word the post shares lifts it among posts about the same thing.

Vectors live in `post_embeddings` (pgvector), in half precision under an IVFFlat index per
model (catalog.vector_index; below its training size a read compares every vector). A
filtered nearest-neighbour read continues through the index until enough rows pass the
filters (iterative scans, relaxed order), then the candidates are put back in exact distance
order. A minimum score of HOT_SCORE or more, or a time frame of up to a month, reads a smaller
set with an HNSW index of its own instead (`post_embeddings_hot`, `post_embeddings_recent`;
catalog.embeddings): a filter that passes 4% of all posts passes half of the hot ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    DateTime,
    Float,
    String,
    bindparam,
    cast,
    column,
    func,
    literal_column,
    null,
    select,
    table,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, DOUBLE_PRECISION
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import UserDefinedType

from sors.catalog.models import Post, Profile
from sors.catalog.records.repository import (
    OWNER_COLUMNS,
    POST_COLUMNS,
    PROFILE_COLUMNS,
    score_column,
)
from sors.catalog.search import words
from sors.catalog.search.repository import (
    PostFilter,
    ProfileFilter,
    post_conditions,
    post_order,
    post_params,
    profile_conditions,
    profile_params,
)
from sors.catalog.vectors.schema import HOT_SCORE, RECENT_DAYS

CANDIDATES = 500  # similarTo: the nearest posts ranked
# The candidates of a `semantic` search: each place read costs an index step and a filter
# check; past this depth the posts are rarely about the query (docs/PERFORMANCE.md).
MEANING_DEPTH = 200
# What the words add to a candidate's similarity at most (a post holding every word of the
# query): chosen on a development set of queries (bench/relevance.py, docs/PERFORMANCE.md).
WORD_WEIGHT = 0.1
# How far an index read goes. HNSW (the subsets' indexes, ef_construction 200): its
# candidate list; filtered reads there found 0.94 of the true nearest with 100 and 0.97 with
# 200 (docs/PERFORMANCE.md, "Search by meaning"). IVFFlat (all vectors, catalog.vector_index):
# the lists read, a PROBES_SHARE-th of the index's lists and at least MIN_PROBES (all of a
# small index's); a filtered read may go on to REACH times as many before it stops, as HNSW's
# stops at `hnsw.max_scan_tuples`.
EF_SEARCH = 200
PROBES_SHARE = 50
MIN_PROBES = 10
REACH = 8
_READ_SETTINGS = text("""
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', :ef, true),
       set_config('ivfflat.iterative_scan', 'relaxed_order', true),
       set_config('ivfflat.probes', p::text, true),
       set_config('ivfflat.max_probes', (p * :reach)::text, true)
  FROM (SELECT greatest(:min_probes, coalesce((SELECT index_lists / :share
          FROM embedding_backfill WHERE model = :model), 0)) AS p) x
""")

EMB = table("post_embeddings", column("post_id"), column("model"), column("embedding"))
HOT = table("post_embeddings_hot", column("post_id"), column("model"), column("embedding"))
RECENT = table("post_embeddings_recent", column("post_id"), column("model"), column("embedding"),
               column("published_at", DateTime(timezone=True)))


class HalfVec(UserDefinedType[Any]):
    cache_ok = True

    def __init__(self, dims: int) -> None:
        self.dims = int(dims)

    def get_col_spec(self, **_: Any) -> str:
        return f"halfvec({self.dims})"


def _distance(dims: int, vectors: Any = EMB) -> Any:
    query = cast(bindparam("qvec", type_=String()), HalfVec(dims))
    return cast(vectors.c.embedding, HalfVec(dims)).op("<=>", return_type=Float())(query)


def _vectors(f: PostFilter) -> tuple[Any, list[Any]]:
    """The smallest set of vectors that holds every post the filters can pass (the hot ones
    for a minimum three-month mean score of HOT_SCORE or more, the recent ones for a time
    frame within RECENT_DAYS, else all; catalog.embeddings), and the conditions its own
    columns can check before the post is read."""
    if (f.min_score is not None and f.min_score >= HOT_SCORE
            and score_column(f.score_window, f.score_method).key == "score_three_months"):
        return HOT, []
    # A day's margin for the clocks of this process and the database.
    if f.published_since is not None and f.published_since >= (
            datetime.now(UTC) - timedelta(days=RECENT_DAYS - 1)):
        return RECENT, [RECENT.c.published_at >= f.published_since]
    return EMB, []


def _nearest(f: PostFilter, dims: int, *, depth: int = 0, exclude_post: bool = False,
             exclude_creator: bool = False, phrases: int = 0, words: bool = False) -> Any:
    """The `depth` (default CANDIDATES) posts nearest the query vector that pass the
    filters and hold the `phrases` phrases bound as `phrase_<i>` (a CTE of id and distance).
    `words`: also the weight of the query's words each holds (`held`; the words and their
    weights bound as `words` and `idfs`), read from the row the filter check has fetched."""
    vectors, conds = _vectors(f)
    dist = _distance(dims, vectors)
    conds += post_conditions(f)
    if exclude_post:
        conds.append(Post.id != bindparam("exclude_post"))
    if exclude_creator:
        conds.append(Post.profile_id != bindparam("exclude_profile"))
    for i in range(phrases):
        phrase = func.phraseto_tsquery(literal_column("'simple'::regconfig"),
                                       func.sors_unaccent(bindparam(f"phrase_{i}", type_=String())))
        conds.append(Post.search_vector.op("@@")(phrase))
    cols = [Post.id.label("id"), dist.label("dist")]
    if words:
        q = (func.unnest(cast(bindparam("words"), ARRAY(String())),
                         cast(bindparam("idfs"), ARRAY(DOUBLE_PRECISION())))
             .table_valued("w", "idf").render_derived(name="q"))
        held = (select(func.coalesce(func.sum(q.c.idf), literal_column("0")))
                .where(q.c.w == func.any(func.tsvector_to_array(Post.search_vector)))
                .scalar_subquery())
        cols.append(held.label("held"))
    return (
        select(*cols)
        .select_from(vectors.join(Post, Post.id == vectors.c.post_id))
        .where(vectors.c.model == bindparam("model"), *conds)
        .order_by(dist)
        .limit(depth or CANDIDATES)
        .cte("near")
        .prefix_with("MATERIALIZED")
    )


def _ranked(near: Any) -> Any:
    """The candidates with their cosine similarity (`similarity`) and the best of them
    (`best`); `relevance`, when the candidates carry the weight of the words they hold, the
    similarity plus WORD_WEIGHT times that weight's share of the query's (`idf_total`)."""
    similarity = 1 - near.c.dist
    if "held" in near.c:
        total: Any = cast(bindparam("idf_total"), DOUBLE_PRECISION())
        share = near.c.held.op("/")(func.nullif(total, literal_column("0")))
        relevance = similarity + cast(bindparam("word_weight"), DOUBLE_PRECISION()) * (
            func.coalesce(share, literal_column("0")))
    else:
        relevance = null()
    return select(near.c.id, similarity.label("similarity"), relevance.label("relevance"),
                  func.max(similarity).over().label("best"))


def _page(ranked: Any, order: str, f: PostFilter, sort_by: str | None) -> Any:
    """The page of the candidates. In relevance or similarity order the page is cut from the
    ranked ids first, and only its rows are read."""
    scored = ranked.subquery("ranked")
    total = func.count().over().label("fused_total")
    if sort_by:
        return (
            select(*POST_COLUMNS, *OWNER_COLUMNS, scored.c.similarity, scored.c.relevance,
                   scored.c.best, total)
            .select_from(scored)
            .join(Post, Post.id == scored.c.id)
            .join(Profile, Profile.id == Post.profile_id)
            .order_by(*post_order(sort_by, f.score_window, f.score_method))
            .limit(bindparam("limit"))
            .offset(bindparam("offset"))
        )
    key = [scored.c[order].desc(), scored.c.id]
    page = (
        select(scored, total)
        .order_by(*key)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
        .subquery("page")
    )
    return (
        select(*POST_COLUMNS, *OWNER_COLUMNS, page.c.similarity, page.c.relevance, page.c.best,
               page.c.fused_total)
        .select_from(page)
        .join(Post, Post.id == page.c.id)
        .join(Profile, Profile.id == Post.profile_id)
        .order_by(page.c[order].desc(), page.c.id)
    )


async def read_settings(session: AsyncSession, model: str) -> None:
    """How far this transaction's index reads go (one round trip). Filtered nearest
    neighbours: either index keeps reading until enough rows pass the filters."""
    await session.execute(_READ_SETTINGS, {"ef": str(EF_SEARCH), "reach": REACH,
                                           "min_probes": MIN_PROBES, "share": PROBES_SHARE,
                                           "model": model})


async def _run(
    session: AsyncSession, stmt: Any, params: dict[str, object]
) -> list[Mapping[str, Any]]:
    await read_settings(session, str(params["model"]))
    return [dict(r._mapping) for r in await session.execute(stmt, params)]


async def search_by_meaning(
    session: AsyncSession, f: PostFilter, *, qvec: str | None, model: str, dims: int,
    sort_by: str | None, limit: int, offset: int,
) -> list[Mapping[str, Any]]:
    """`f.query` by meaning, its words reordering the nearest (module docstring); every
    other filter of `f` applies, and every phrase the query quotes. Without a query vector
    (no word of the query is known to the model) nothing is near: no candidates."""
    if qvec is None:
        return []
    query = f.query or ""
    quoted = words.phrases(query)
    weights = await words.weights(session, query)
    words_free = replace(f, query=None)
    near = _nearest(words_free, dims, depth=MEANING_DEPTH, phrases=len(quoted), words=True)
    params = {**post_params(words_free), "qvec": qvec, "model": model,
              **{f"phrase_{i}": p for i, p in enumerate(quoted)},
              "words": weights.words, "idfs": weights.idfs, "idf_total": weights.total,
              "word_weight": WORD_WEIGHT, "limit": limit, "offset": offset}
    return await _run(session, _page(_ranked(near), "relevance", f, sort_by), params)


async def similar_posts(
    session: AsyncSession, f: PostFilter, *, qvec: str, model: str, dims: int,
    post_id: str, profile_id: str | None, sort_by: str | None, limit: int, offset: int,
) -> list[Mapping[str, Any]]:
    """Posts nearest `post_id`'s vector (not the post itself; not its creator's unless
    `profile_id` is None); `f.query`, when given, filters by words. In similarity order the
    read stops at the page's end (`limit` holds one more, to tell whether more follow);
    another order sorts the CANDIDATES nearest."""
    depth = CANDIDATES if sort_by else min(CANDIDATES, offset + limit)
    nearest = _ranked(_nearest(f, dims, depth=depth, exclude_post=True,
                               exclude_creator=profile_id is not None))
    params = {**post_params(f), "qvec": qvec, "model": model, "exclude_post": post_id,
              "exclude_profile": profile_id, "limit": limit, "offset": offset}
    return await _run(session, _page(nearest, "similarity", f, sort_by), params)


_VECTOR_OF = text("SELECT embedding::text, model FROM post_embeddings WHERE post_id = :p")


async def stored_vector(session: AsyncSession, post_id: str) -> tuple[str, str] | None:
    row = (await session.execute(_VECTOR_OF, {"p": post_id})).first()
    return (row[0], row[1]) if row else None



_CENTROID = text("""
SELECT avg(e.embedding)::text
  FROM post_embeddings e JOIN posts p ON p.id = e.post_id
 WHERE p.profile_id = :p AND e.model = :model AND p.deleted_at IS NULL
""")


async def profile_centroid(session: AsyncSession, profile_id: str, model: str) -> str | None:
    """The mean of a creator's post vectors: what their posts are about."""
    return (await session.execute(_CENTROID, {"p": profile_id, "model": model})).scalar()


async def similar_profiles(
    session: AsyncSession, f: ProfileFilter, *, qvec: str, model: str, dims: int,
    profile_id: str, limit: int, offset: int,
) -> list[Mapping[str, Any]]:
    """Creators whose posts are nearest `profile_id`'s centroid: the CANDIDATES nearest
    posts of other creators, each creator ranked by the mean similarity of their best three
    (one lucky post does not make a creator alike)."""
    dist = _distance(dims)
    near = (
        select(Post.profile_id.label("profile_id"), (1 - dist).label("sim"))
        .select_from(EMB.join(Post, Post.id == EMB.c.post_id))
        .where(EMB.c.model == bindparam("model"), Post.profile_id != bindparam("exclude_profile"),
               Post.deleted_at.is_(None))
        .order_by(dist)
        .limit(CANDIDATES)
        .cte("near")
        .prefix_with("MATERIALIZED")
    )
    ranked_posts = select(
        near.c.profile_id, near.c.sim,
        func.row_number().over(partition_by=near.c.profile_id,
                               order_by=near.c.sim.desc()).label("k"),
    ).subquery("ranked_posts")
    alike = (
        select(ranked_posts.c.profile_id, func.avg(ranked_posts.c.sim).label("similarity"))
        .where(ranked_posts.c.k <= 3)
        .group_by(ranked_posts.c.profile_id)
        .subquery("alike")
    )
    stmt = (
        select(*PROFILE_COLUMNS, alike.c.similarity, func.count().over().label("fused_total"))
        .select_from(alike)
        .join(Profile, Profile.id == alike.c.profile_id)
        .where(*profile_conditions(f))
        .order_by(alike.c.similarity.desc(), Profile.id)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )
    params = {**profile_params(f), "qvec": qvec, "model": model, "exclude_profile": profile_id,
              "limit": limit, "offset": offset}
    return await _run(session, stmt, params)
