"""Breakouts: defaults, the query, and the answer with full post records."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.breakouts import merge
from sors.breakouts import repository as repo
from sors.breakouts.schemas import IDEA_KINDS, BreakoutOut, BreakoutsIn, BreakoutsOut
from sors.catalog.records import repository as catalog
from sors.catalog.records.build import flat_post
from sors.catalog.records.paging import DEFAULT_SCORE_METHOD, DEFAULT_SCORE_WINDOW, since
from sors.catalog.records.schemas import FlatPost
from sors.kit.responses import assemble
from sors.platforms import taxonomy

DEFAULT_TIME_FRAME = "one_month"
DEFAULT_MIN_CREATORS = 3
DEFAULT_MIN_SCORE = 3.0
DEFAULT_LIMIT = 20
# Each creator's best post, best first, for at most this many creators: a format breakout
# can have hundreds of creators, and every evidence post is a full record in the answer
# (the full list made the answer megabytes and most of its time: docs/PERFORMANCE.md).
EVIDENCE_LIMIT = 10
# Phrases only on request: splitting every caption into word pairs costs seconds at 1M
# posts (docs/PERFORMANCE.md), the other kinds well under one.
DEFAULT_KINDS = ("hashtag", "format", "sound")


def _evidence(posts: list[FlatPost]) -> list[FlatPost]:
    """Each creator's first post of the list (a merged phrase joins two lists), at most
    EVIDENCE_LIMIT."""
    seen: set[str] = set()
    out = []
    for p in posts:
        if p.profile_id not in seen:
            seen.add(p.profile_id)
            out.append(p)
    return out[:EVIDENCE_LIMIT]


def _round(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


async def find_breakouts(
    session: AsyncSession, body: BreakoutsIn, *, now: datetime, min_age_hours: float
) -> BreakoutsOut:
    time_frame = body.timeFrame or DEFAULT_TIME_FRAME
    q = repo.BreakoutQuery(
        since=since(time_frame, now),
        min_score=DEFAULT_MIN_SCORE if body.minScore is None else body.minScore,
        min_creators=body.minCreators or DEFAULT_MIN_CREATORS,
        kinds=[k for k in IDEA_KINDS if k in (body.kinds or DEFAULT_KINDS)],
        score_window=body.scoreWindow or DEFAULT_SCORE_WINDOW,
        score_method=body.scoreMethod or DEFAULT_SCORE_METHOD,
        limit=body.limit or DEFAULT_LIMIT,
        platforms=body.platforms,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
        category_label=body.categoryId,
        evidence_limit=EVIDENCE_LIMIT,
    )
    rows = await repo.breakouts(session, q)
    wanted = {i for r in rows for i in (r["first_id"], r["latest_id"], *(r["evidence"] or []))}
    posts = {
        pid: flat_post(p, now, min_age_hours)
        for pid, p in (await catalog.posts_by_ids(session, wanted)).items()
    }
    if "phrase" in q.kinds:
        rows = merge.apply(rows, lambda i: posts[i].caption if i in posts else None)
    return assemble(BreakoutsOut, {
        "timeFrame": time_frame,
        "scoreWindow": q.score_window,
        "scoreMethod": q.score_method,
        "minCreators": q.min_creators,
        "minScore": q.min_score,
        "categoryId": body.categoryId,
        "breakouts": [
            assemble(BreakoutOut, {
                "kind": r["kind"],
                "idea": r["idea"],
                "categoryId": r["category_id"],
                "creatorCount": r["creators"],
                "postCount": r["posts"],
                "medianScore": round(float(r["median_score"]), 4),
                "outlierShare": round(float(r["outlier_share"]), 4),
                "ordinaryShare": _round(r["ordinary_share"]),
                "lift": round(float(r["lift"]), 4),
                "firstPost": posts[r["first_id"]],
                "latestPost": posts[r["latest_id"]],
                "evidence": _evidence([posts[i] for i in r["evidence"] or [] if i in posts]),
            })
            for r in rows
        ],
    })
