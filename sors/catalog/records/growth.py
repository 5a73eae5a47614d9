"""A post's stat history: snapshots with ages, views per hour between them, and its views
at fixed ages (1 h, 24 h, 7 d) interpolated where two real snapshots bracket them.

Publication is a known point of every curve (age 0, no views yet), but views are front-loaded:
a straight line from publication to a snapshot taken days later invents an early velocity the
post never had. So publication anchors a milestone only when the first snapshot came within
`PUBLISH_ANCHOR_HOURS` of it; otherwise the milestone is null with the reason. Interpolation
is linear and always marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sors.catalog.records.history_schemas import (
    ChangeOut,
    MilestoneOut,
    PostHistoryOut,
    SnapshotOut,
)
from sors.catalog.records.schemas import PostGrowth
from sors.kit.clock import isoformat
from sors.kit.responses import assemble

MILESTONES: tuple[tuple[str, float], ...] = (("1h", 1.0), ("24h", 24.0), ("7d", 168.0))
# The longest gap between publication and the first snapshot across which a milestone is
# still read off the line from (0 h, 0 views).
PUBLISH_ANCHOR_HOURS = 6.0


def _hours(a: datetime, b: datetime) -> float:
    return (a - b).total_seconds() / 3600.0


def _r(v: float | None, digits: int = 2) -> float | None:
    return None if v is None else round(float(v), digits)


def views_at(points: Sequence[tuple[float, int]], age: float) -> tuple[float | None, bool]:
    """(views at `age` hours, interpolated?) from (age, views) points sorted by age; None
    when no two points bracket `age`."""
    for i, (a, v) in enumerate(points):
        if a == age:
            return float(v), False
        if a > age:
            if i == 0:
                return None, False
            a0, v0 = points[i - 1]
            return v0 + (v - v0) * (age - a0) / (a - a0), True
    return None, False


def milestone(
    snapshots: Sequence[tuple[float, int]], hours: float, post_age: float
) -> tuple[float | None, bool | None, str | None]:
    """(views, interpolated, reason) at `hours` from the real (age, views) snapshots sorted by
    age. `reason` says why views are null: `not_reached` (the post is younger), `no_snapshots`,
    `first_snapshot_too_late` (nothing measured at or before that age, and the first
    snapshot came more than `PUBLISH_ANCHOR_HOURS` after publication), `no_snapshot_since`
    (nothing measured at or after that age yet)."""
    if post_age < hours:
        return None, None, "not_reached"
    if not snapshots:
        return None, None, "no_snapshots"
    points = list(snapshots)
    if points[0][0] > hours:
        if points[0][0] > PUBLISH_ANCHOR_HOURS:
            return None, None, "first_snapshot_too_late"
        points.insert(0, (0.0, 0))
    views, interpolated = views_at(points, hours)
    if views is None:
        return None, None, "no_snapshot_since"
    return views, interpolated, None


def history(
    post: Mapping[Any, Any], stats: Sequence[Mapping[Any, Any]],
    changes: Sequence[Mapping[Any, Any]], now: datetime,
) -> PostHistoryOut:
    """GET /posts/{postId}/history: the snapshots, the milestones as of `now` and the
    caption rewrites with the views per hour around them."""
    published: datetime = post["published_at"]
    snapshots: list[SnapshotOut] = []
    prev: tuple[float, int] | None = None
    points: list[tuple[float, int]] = []
    for s in stats:
        age = _hours(s["crawled_at"], published)
        per_hour = None
        if prev is not None and s["views"] is not None and age > prev[0]:
            per_hour = (s["views"] - prev[1]) / (age - prev[0])
        snapshots.append(SnapshotOut(
            crawledAt=isoformat(s["crawled_at"]),
            ageHours=_r(age),
            views=s["views"],
            likes=s["likes"],
            comments=s["comments"],
            shares=s["shares"],
            viewsPerHour=_r(per_hour),
        ))
        if s["views"] is not None and age >= 0:
            prev = (age, s["views"])
            if not points or age > points[-1][0]:
                points.append(prev)
    post_age = _hours(now, published)
    milestones = []
    for label, hours in MILESTONES:
        views, interpolated, reason = milestone(points, hours, post_age)
        milestones.append(MilestoneOut(
            age=label, ageHours=hours, views=_r(views, 1), interpolated=interpolated,
            reason=reason,
        ))
    return PostHistoryOut(
        postId=post["id"],
        publishedAt=isoformat(published),
        ageHours=_r(_hours(now, published)),
        snapshotCount=len(snapshots),
        viewsPerHour24h=_r(post.get("velocity")),
        snapshots=snapshots,
        milestones=milestones,
        changes=change_effects(published, stats, changes),
    )


def growth_block(post: Mapping[Any, Any], snapshot_count: int, now: datetime) -> PostGrowth:
    """The `growth` block of a post record (snake_case, as the record)."""
    return assemble(PostGrowth, {
        "age_hours": _r(_hours(now, post["published_at"])),
        "snapshot_count": snapshot_count,
        "views_per_hour_24h": _r(post.get("velocity")),
    })


def _rate(a: tuple[datetime, int | None], b: tuple[datetime, int | None]) -> float | None:
    hours = _hours(b[0], a[0])
    if a[1] is None or b[1] is None or hours <= 0:
        return None
    return (b[1] - a[1]) / hours


def change_effects(
    published: datetime, stats: Sequence[Mapping[Any, Any]],
    changes: Sequence[Mapping[Any, Any]],
) -> list[ChangeOut]:
    """Each caption/title change with the views per hour around it: `viewsPerHourBefore`
    over the last interval the old version had alone (the two snapshots before the crawl
    that saw the change, or publication and the one snapshot), `viewsPerHourAfter` from
    that crawl to the next (null until there is one). The change happened somewhere
    between the crawl before and the crawl that saw it: that interval is neither."""
    points = [(published, 0), *((s["crawled_at"], s["views"]) for s in stats)]
    out = []
    for c in changes:
        at = c["changed_at"]
        before = [p for p in points if p[0] < at]
        after = [p for p in points if p[0] >= at]
        out.append(ChangeOut(
            field=c["field"],
            changedAt=isoformat(at),
            before=c["before"],
            after=c["after"],
            viewsPerHourBefore=_r(_rate(before[-2], before[-1])) if len(before) >= 2 else None,
            viewsPerHourAfter=_r(_rate(after[0], after[1])) if len(after) >= 2 else None,
        ))
    return out
