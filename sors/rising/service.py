"""Rising posts: young posts running above their creator's p90 (and 3× its median) at their
age and accelerating, one per creator, each with its projection and what a chart needs."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest import curves
from sors.catalog.ingest.curves import CURVE_AGES_HOURS
from sors.catalog.ingest.trajectory import Curve
from sors.catalog.records.build import flat_fields
from sors.catalog.trends.repository import TrendFilter
from sors.kit.clock import isoformat
from sors.kit.responses import assemble
from sors.platforms import taxonomy
from sors.rising import repository as repo
from sors.rising.schemas import CurvePoint, Rising, RisingIn, RisingPost, SnapshotPoint

DEFAULT_MAX_AGE_HOURS = 72
DEFAULT_LIMIT = 20


def _band(curve: Curve | None) -> list[CurvePoint]:
    if not curve:
        return []
    return [
        assemble(CurvePoint, {"ageHours": a, "p10": curve[a][0], "p50": curve[a][1],
                              "p90": curve[a][2], "postCount": curve[a][3]})
        for a in CURVE_AGES_HOURS
        if a in curve and curve[a][1] is not None
    ]


async def rising(
    session: AsyncSession, body: RisingIn, *, now: datetime, min_age_hours: float
) -> Rising:
    max_age = body.maxAgeHours or DEFAULT_MAX_AGE_HOURS
    f = TrendFilter(published_since=now - timedelta(hours=max_age), query=body.query,
                    platforms=body.platforms)
    rows = await repo.rising_posts(
        session, f,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
        limit=body.limit or DEFAULT_LIMIT,
    )
    stored = await curves.curves_for(session, sorted({r["profile_id"] for r in rows}))
    snaps = await repo.snapshots(session, [r["id"] for r in rows])
    posts = []
    for r in rows:
        fields = flat_fields(r, now, min_age_hours)
        fields["curve"] = _band(stored.get((r["profile_id"], r["fmt"])))
        fields["snapshots"] = [
            assemble(SnapshotPoint, {
                "ageHours": round((at - r["published_at"]).total_seconds() / 3600.0, 2),
                "views": views,
            })
            for at, views in snaps.get(r["id"], [])
        ]
        posts.append(assemble(RisingPost, fields))
    return assemble(Rising, {"generatedAt": isoformat(now), "maxAgeHours": max_age,
                             "query": body.query, "posts": posts})
