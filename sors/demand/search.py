"""search_demand: a scope's asking comments clustered by meaning, each cluster with its
label (its most central comment, verbatim), size, likes, posts, quotes, and whether a post
in the catalog answers it (`covered`: its label's nearest post by meaning at least
`coveredSimilarity`, demand.vectors).

Bounded work whatever the scope: the MAX_TEXTS distinct texts repeated and liked most are
clustered (identical texts are one point with their weight), and `commentsMatched` beside
`commentsClustered` says when a scope held more. A text kept without a vector (the demo's
build, a model change) is embedded for the request, up to MAX_EMBED; the scheduler stores
them meanwhile.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records.paging import since
from sors.catalog.vectors.embedder import Embedder
from sors.catalog.vectors.embeddings import embedder_or_none
from sors.config import Settings
from sors.demand import repository as repo
from sors.demand import vectors
from sors.demand.clusters import Cluster, cluster
from sors.demand.errors import DemandUnavailable
from sors.demand.models import DEMAND_KINDS
from sors.demand.schemas import (
    ClusterPost,
    DemandCluster,
    DemandSearchIn,
    DemandSearchOut,
    NearPost,
    Quote,
)
from sors.platforms import taxonomy

MAX_TEXTS = 1200
MAX_EMBED = 300
DEFAULT_TIME_FRAME = "three_months"
DEFAULT_LIMIT = 20
NEAREST = 3
# `unanswered` orders the largest clusters by whether a post answers them: this many are
# checked (each check is one nearest-neighbour read, a few milliseconds: the most a page
# shows, so a page of gaps is always found among the largest clusters).
CHECKED_FOR_UNANSWERED = 50
MAX_POSTS_SHOWN = 20
MAX_QUOTES = 5
MAX_IDS = 1000


def _scope(body: DemandSearchIn, account_id: str, now: datetime) -> repo.Scope:
    return repo.Scope(
        kinds=list(body.kinds or DEMAND_KINDS),
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
        profile_id=body.profileId, board_id=body.boardId, account_id=account_id,
        post_ids=body.postIds, platforms=body.platforms,
        since=since(body.timeFrame or DEFAULT_TIME_FRAME, now),
    )


def _vectors(model: Embedder, rows: list[dict[str, Any]]) -> list[int]:
    """Fill the rows' missing vectors (up to MAX_EMBED); the rows that have one."""
    missing = [i for i, r in enumerate(rows) if r["vector"] is None][:MAX_EMBED]
    for i, blob in zip(missing, vectors.embed(model, [rows[i]["text"] for i in missing]),
                       strict=True):
        rows[i]["vector"] = blob
    return [i for i, r in enumerate(rows) if r["vector"] is not None]


def _record(c: Cluster, rows: list[dict[str, Any]]) -> dict[str, Any]:
    members = [rows[i] for i in c.members]
    comments = sorted(
        ((cid, pid, likes, kind) for r in members
         for cid, pid, likes, kind in zip(r["ids"], r["posts"], r["each_likes"], r["kinds"],
                                          strict=True)),
        key=lambda x: (-x[2], x[0]))
    per_post = Counter(pid for _, pid, _, _ in comments)
    quotes = sorted(members, key=lambda r: (-r["each_likes"][0], r["ids"][0]))[:MAX_QUOTES]
    label = rows[c.label]
    return {
        "label": label["text"], "labelCommentId": label["ids"][0], "size": len(comments),
        "likes": sum(x[2] for x in comments), "texts": len(members),
        "kinds": dict(Counter(x[3] for x in comments).most_common()),
        "postCount": len(per_post), "perPost": per_post.most_common(MAX_POSTS_SHOWN),
        "quotes": [Quote(commentId=r["ids"][0], text=r["text"], likes=r["each_likes"][0],
                         postId=r["posts"][0]) for r in quotes],
        "commentIds": [x[0] for x in comments[:MAX_IDS]],
        "vector": label["vector"],
    }


def _order(records: list[dict[str, Any]], sort_by: str) -> None:
    if sort_by == "likes":
        records.sort(key=lambda r: (-r["likes"], -r["size"], r["labelCommentId"]))
    elif sort_by == "unanswered":
        # Unchecked ones (null) are smaller than every checked one.
        rank = {False: 0, True: 1, None: 2}
        records.sort(key=lambda r: (rank[r["covered"]], -r["size"], -r["likes"],
                                    r["labelCommentId"]))
    else:
        records.sort(key=lambda r: (-r["size"], -r["likes"], r["labelCommentId"]))


async def _cover(session: AsyncSession, model: Embedder, records: list[dict[str, Any]],
                 threshold: float) -> None:
    """Each record's nearest posts and `covered`, in one statement."""
    dims = model.dims
    found = await repo.nearest_posts(
        session, model.key, dims,
        [vectors.as_pgvector(vectors.matrix([r["vector"]], dims)[0]) for r in records],
        NEAREST)
    near: dict[int, list[NearPost]] = {}
    for f in found:
        near.setdefault(int(f["i"]) - 1, []).append(NearPost(
            postId=f["post_id"], url=f["url"], platform=f["platform"], handle=f["handle"],
            similarity=round(float(f["similarity"]), 4)))
    for i, r in enumerate(records):
        r["nearest"] = near.get(i, [])
        r["covered"] = (r["nearest"][0].similarity >= threshold) if r["nearest"] else None


async def search_demand(session: AsyncSession, body: DemandSearchIn, *, account_id: str,
                        settings: Settings, now: datetime) -> DemandSearchOut:
    model = embedder_or_none(settings)
    if model is None:
        raise DemandUnavailable("No embedding model can be loaded on this server "
                                "(SORS_EMBEDDING_MODEL): comments cannot be clustered.")
    scope = _scope(body, account_id, now)
    rows = await repo.scope_texts(session, scope, model.key, MAX_TEXTS)
    matched = int(rows[0]["comments"]) if rows else 0
    texts_matched = int(rows[0]["texts"]) if rows else 0
    usable = [rows[i] for i in _vectors(model, rows)]
    threshold = vectors.cluster_similarity(settings, model.key)
    found = cluster(vectors.matrix([r["vector"] for r in usable], model.dims),
                    [r["n"] for r in usable], [r["likes"] for r in usable], threshold)
    records = [_record(c, usable) for c in found]
    clustered = sum(r["size"] for r in records)
    records = [r for r in records if r["size"] >= (body.minSize or 1)]
    for r in records:
        r["covered"], r["nearest"] = None, []
    sort_by = body.sortBy or "size"
    limit = body.limit or DEFAULT_LIMIT
    covered_at = vectors.covered_similarity(settings, model.key)
    if sort_by == "unanswered":
        _order(records, "size")
        await _cover(session, model, records[:CHECKED_FOR_UNANSWERED], covered_at)
    _order(records, sort_by)
    shown = records[:limit]
    if sort_by != "unanswered":
        await _cover(session, model, shown, covered_at)
    info = await repo.post_info(session, sorted({p for r in shown for p, _ in r["perPost"]}))
    return DemandSearchOut(
        timeFrame=body.timeFrame or DEFAULT_TIME_FRAME, sortBy=sort_by, kinds=scope.kinds,
        model=model.key, clusterSimilarity=threshold, coveredSimilarity=covered_at,
        commentsMatched=matched, commentsClustered=clustered, textsMatched=texts_matched,
        textsClustered=len(usable), clustersFound=len(records),
        clusters=[DemandCluster(
            label=r["label"], labelCommentId=r["labelCommentId"], size=r["size"],
            likes=r["likes"], texts=r["texts"], kinds=r["kinds"], postCount=r["postCount"],
            posts=[ClusterPost(postId=p, url=info[p]["url"], platform=info[p]["platform"],
                               handle=info[p]["handle"], comments=n)
                   for p, n in r["perPost"] if p in info],
            quotes=r["quotes"], commentIds=r["commentIds"], covered=r["covered"],
            nearestPosts=r["nearest"],
        ) for r in shown],
    )

