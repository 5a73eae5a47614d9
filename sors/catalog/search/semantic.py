"""Search by meaning: the query's vector and words ranked together (reciprocal rank fusion),
and posts nearest to a post (`similarTo`), with every post filter of a search applied.

Vectors live in `post_embeddings` (pgvector), in half precision under an IVFFlat index per
model (catalog.vector_index; below its training size a read compares every vector). A
filtered nearest-neighbour read continues through the index until enough rows pass the
filters (iterative scans, relaxed order), then the candidates are put back in exact distance
order. A minimum score of HOT_SCORE or more, or a time frame of up to a month, reads a smaller
set with an HNSW index of its own instead (`post_embeddings_hot`, `post_embeddings_recent`;
catalog.embeddings): a filter that passes 4% of all posts passes half of the hot ones.
Each ranking contributes its best `CANDIDATES`; results page within the fused list.
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
    case,
    cast,
    column,
    func,
    literal_column,
    null,
    select,
    table,
    text,
    union_all,
)
from sqlalchemy.dialects.postgresql import TSQUERY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.util import ClauseAdapter
from sqlalchemy.types import UserDefinedType

from sors.catalog.models import Post, Profile
from sors.catalog.records.repository import (
    OWNER_COLUMNS,
    POST_COLUMNS,
    PROFILE_COLUMNS,
    score_column,
)
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

CANDIDATES = 500  # per ranking: the fused list holds at most twice this
# The meaning ranking's depth in `semantic` search: each place read costs an index step and a
# filter check, and below this depth a place adds under 1 / (60 + 200) to a post's relevance.
MEANING_DEPTH = 200
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al.): 1 / (60 + rank)
# How much a word-ranking place counts against a meaning-ranking one (docs/PERFORMANCE.md).
WORDS_WEIGHT = 0.5
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
             exclude_creator: bool = False, words: bool = False) -> Any:
    """The `depth` (default CANDIDATES) posts nearest the query vector that pass the
    filters (a CTE of id and distance; `_ranked` gives their rank, 1 = nearest, and cosine
    similarity). `words`: also each post's word rank (`wrank`, NULL when it holds no query
    word), read from the row the filter check has already fetched."""
    vectors, conds = _vectors(f)
    dist = _distance(dims, vectors)
    conds += post_conditions(f)
    if exclude_post:
        conds.append(Post.id != bindparam("exclude_post"))
    if exclude_creator:
        conds.append(Post.profile_id != bindparam("exclude_profile"))
    cols = [Post.id.label("id"), dist.label("dist")]
    if words:
        tsq = _any_word_query()
        cols.append(case((Post.search_vector.op("@@")(tsq),
                          func.ts_rank_cd(Post.search_vector, tsq))).label("wrank"))
    near = (
        select(*cols)
        .select_from(vectors.join(Post, Post.id == vectors.c.post_id))
        .where(vectors.c.model == bindparam("model"), *conds)
        .order_by(dist)
        .limit(depth or CANDIDATES)
        .cte("near")
        .prefix_with("MATERIALIZED")
    )
    return near


def _ranked(near: Any) -> Any:
    # `dist + 0`: PostgreSQL 18 carries a CTE's ORDER BY out to its readers, but an index
    # scan in relaxed order is only roughly sorted, so the planner must not skip this sort.
    return select(
        near.c.id,
        func.row_number().over(order_by=near.c.dist + 0).label("r"),
        (1 - near.c.dist).label("sim"),
        literal_column("1.0").label("w"),
    )


def _any_word_query() -> Any:
    """The query's words joined by OR: a paraphrase shares some words, rarely all."""
    plain = func.plainto_tsquery(literal_column("'simple'::regconfig"),
                                 func.sors_unaccent(bindparam("query", type_=String())))
    return cast(func.replace(cast(plain, String()), "&", "|"), TSQUERY)


# The query's rare words joined by OR (NULL when it has none). A word is rare when the
# planner's statistics of `posts.search_vector` (its most common lexemes and their shares)
# put fewer than RARE_POSTS posts on it; words off that list are rarer than all on it.
_RARE_WORDS = text("""(
SELECT string_agg(quote_literal(w), ' | ')::tsquery
  FROM unnest(tsvector_to_array(to_tsvector('simple', sors_unaccent(:query)))) AS w
 WHERE coalesce((
       SELECT m.f * c.reltuples
         FROM pg_stats s
         CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[],
                                   s.most_common_elem_freqs) AS m(e, f)
         JOIN pg_class c ON c.oid = 'posts'::regclass
        WHERE s.schemaname = current_schema() AND s.tablename = 'posts'
          AND s.attname = 'search_vector' AND m.e = w), 0) < :rare_posts)""")
RARE_POSTS = 200  # a word on more posts than this ranks only among the meaning's candidates
RARE_POOL = 500  # at most this many posts holding a rare word are ranked


def _worded(f: PostFilter, near: Any | None) -> Any:
    """The word ranking (ts_rank_cd of any query word). Ranking every post that holds a
    common word costs a read of each; so the posts ranked are those holding one of the
    query's rare words plus the meaning ranking's candidates (`near`, made with `words`:
    their rank comes with them), which common words still reorder. Without a meaning
    ranking every post holding any word is ranked."""
    tsq = _any_word_query()
    rank = func.ts_rank_cd(Post.search_vector, tsq)
    if near is None:
        scored = select(Post.id.label("id"), rank.label("rank")).where(
            Post.search_vector.op("@@")(tsq), *post_conditions(f))
    else:
        # Each rare-word post is ranked as the scan finds it: no second read by id. The
        # filters apply to the rows the word index finds (a fence, OFFSET 0): combined
        # with another index they made the planner read that one too (148,000 entries of
        # the recent-posts index for "timeFrame: one_month", to keep 275 of 2,880 rows).
        found = (select(Post.__table__).where(Post.search_vector.op("@@")(_RARE_WORDS))
                 .offset(0).subquery("rare_found"))
        on_found = ClauseAdapter(found).traverse
        rare = (
            select(found.c.id.label("id"),
                   func.ts_rank_cd(found.c.search_vector, tsq).label("rank"))
            .where(*(on_found(c) for c in post_conditions(f)))
            .limit(RARE_POOL)
        )
        pool = union_all(rare, select(near.c.id, near.c.wrank).where(near.c.wrank.is_not(None))
                         ).subquery("pool")
        scored = select(pool.c.id, func.max(pool.c.rank).label("rank")).group_by(pool.c.id)
    hits = scored.subquery("scored")
    top = select(hits).order_by(hits.c.rank.desc(), hits.c.id).limit(CANDIDATES).subquery("worded")
    return select(top.c.id, func.row_number().over(order_by=(top.c.rank.desc(), top.c.id))
                  .label("r"), null().label("sim"), literal_column(str(WORDS_WEIGHT)).label("w"))


def _page(fused: Any, order: str, f: PostFilter, sort_by: str | None) -> Any:
    """The page of the fused list. In relevance or similarity order the page is cut from the
    ranked ids first, and only its rows are read."""
    total = func.count().over().label("fused_total")
    ranked = (
        select(fused.c.id, func.sum(fused.c.w / (RRF_K + fused.c.r)).label("relevance"),
               func.max(fused.c.sim).label("similarity"))
        .group_by(fused.c.id)
        .subquery("ranked")
    )
    if sort_by:
        return (
            select(*POST_COLUMNS, *OWNER_COLUMNS, ranked.c.similarity, ranked.c.relevance, total)
            .select_from(ranked)
            .join(Post, Post.id == ranked.c.id)
            .join(Profile, Profile.id == Post.profile_id)
            .order_by(*post_order(sort_by, f.score_window, f.score_method))
            .limit(bindparam("limit"))
            .offset(bindparam("offset"))
        )
    key = [ranked.c[order].desc().nulls_last(), ranked.c.id]
    page = (
        select(ranked, total)
        .order_by(*key)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
        .subquery("page")
    )
    return (
        select(*POST_COLUMNS, *OWNER_COLUMNS, page.c.similarity, page.c.relevance,
               page.c.fused_total)
        .select_from(page)
        .join(Post, Post.id == page.c.id)
        .join(Profile, Profile.id == Post.profile_id)
        .order_by(page.c[order].desc().nulls_last(), page.c.id)
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
    """`f.query` by meaning and by words, fused; every other filter of `f` applies. Without
    a query vector (no word of the query is known to the model) the words rank alone."""
    words_free = replace(f, query=None)
    if qvec is None:
        rankings = [_worded(words_free, None)]
    else:
        near = _nearest(words_free, dims, depth=MEANING_DEPTH, words=True)
        rankings = [_ranked(near), _worded(words_free, near)]
    fused = union_all(*rankings).subquery()
    params = {**post_params(words_free), "qvec": qvec, "model": model, "query": f.query,
              "rare_posts": RARE_POSTS, "limit": limit, "offset": offset}
    return await _run(session, _page(fused, "relevance", f, sort_by), params)


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
                               exclude_creator=profile_id is not None)).subquery()
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
