"""Where a young post stands against its creator's own curve, and where it is heading.

Pure functions over a post's views, its last snapshots and its creator's curve
(catalog.curves); catalog.projections runs them for a crawl's young posts and stores the
result on the post. The method, in docs/API.md ("Rising posts"):

- The curve at the post's age: between two ages of the curve, on a log-log scale
  (views grow roughly as a power of age early on); younger than the curve's first age
  (1 h) or older than 30 days: no projection.
- `percentile_now`: where the post's views sit among the creator's posts at the same age,
  reading the curve's p10/p50/p90 as a log-normal spread (each side its own width).
- `vs_median_now` (the rising score): views / the curve's median at this age.
- `accelerating`: views per hour between its last two snapshots above the views per hour
  between the two before (publication counts as a snapshot of 0 views) by more than
  counting noise (the last interval's views exceed what the previous pace predicts by more
  than 2·√(that prediction), at least 2 views), the last interval adding at least 1% of its
  views.
- Projected views at 7 and 30 days: the post keeps its multiple of the creator's median
  curve (views × p50(T) / p50(now)); the range widens with how much growth is still ahead:
  expected × exp(±(SPREAD_BASE + SPREAD_PER_GROWTH × ln(p50(T) / p50(now)))), never below
  the views it already has; an accelerating post's high end reaches at least what its
  latest pace (views per hour between its last two snapshots) would add by then.
- `projected_outlier_score`: the 30-day projection / the creator's three-month average
  (the seed's outlier score, ahead of time).
- `confidence`: from how many of the creator's posts the curve stands on at this age.
- `rising`: above the curve's p90 at its age, at least `RISING_MIN_VS_MEDIAN` times its
  median there, and accelerating. The floor keeps out the creator's ordinary good posts
  that run just above a narrow p90 in their first day (bench/rising.py: precision at 24 h
  0.63-0.78 without it, 0.72-0.81 with it, recall 0.61-0.64 either way).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from sors.catalog.ingest.curves import CURVE_AGES_HOURS

PROJECTION_MAX_AGE_HOURS = 720
HORIZON_7D, HORIZON_30D = 168, 720  # hours
# The projected range: log half-width at no growth left, and per unit of log growth ahead.
SPREAD_BASE = 0.15
SPREAD_PER_GROWTH = 0.6
# The last interval must add at least this share of the views to count as accelerating.
ACCELERATING_MIN_GAIN = 0.01
# ...and exceed the previous interval's pace by more than counting noise: 2·√(the views that
# pace predicts), at least this many views.
ACCELERATING_MIN_VIEWS = 2.0
# A rising post is also at least this many times its creator's median at its age.
RISING_MIN_VS_MEDIAN = 3.0
CONFIDENCE = ((20, "high"), (10, "medium"), (0, "low"))
_Z90 = 1.2815515655446004

# age → (p10, p50, p90, post_count)
Curve = Mapping[int, tuple[float | None, float | None, float | None, int]]


class ViewsRange(TypedDict):
    low: float
    expected: float
    high: float


class ExpectedNow(TypedDict):
    p10: int
    p50: int
    p90: int


class StoredProjection(TypedDict):
    """What `project` makes, and catalog.projections stores on the post (jsonb); the post
    records show it (`records.schemas.Projection`)."""

    as_of: str
    age_hours: float
    percentile_now: float | None
    vs_median_now: float
    expected_views_now: ExpectedNow
    accelerating: bool | None
    rising: bool
    confidence: str
    curve_post_count: int
    projected_views_7d: ViewsRange | None
    projected_views_30d: ViewsRange | None
    projected_outlier_score: float | None


@dataclass(frozen=True, slots=True)
class AtAge:
    p10: float
    p50: float
    p90: float
    post_count: int


def _between(lo: float, hi: float, x: float, a_lo: float, a_hi: float) -> float:
    if a_hi == a_lo:
        return lo
    if lo > 0 and hi > 0:
        w = (math.log(x) - math.log(a_lo)) / (math.log(a_hi) - math.log(a_lo))
        return lo * (hi / lo) ** w
    return lo + (hi - lo) * (x - a_lo) / (a_hi - a_lo)


def at_age(curve: Curve, hours: float) -> AtAge | None:
    """The curve's percentiles at `hours`, or None outside it or where it is null."""
    ages = [a for a in CURVE_AGES_HOURS if a in curve and curve[a][1] is not None]
    if not ages or hours < ages[0] or hours > ages[-1]:
        return None
    hi = next(a for a in ages if a >= hours)
    lo = max((a for a in ages if a <= hours), default=hi)
    # Two ages of the curve around the post's age, with no null age between them.
    if any(a not in ages for a in CURVE_AGES_HOURS if lo < a < hi):
        return None
    c_lo, c_hi = curve[lo], curve[hi]
    vals = [
        _between(float(c_lo[i] or 0.0), float(c_hi[i] or 0.0), hours, lo, hi) for i in range(3)
    ]
    return AtAge(vals[0], vals[1], vals[2], min(c_lo[3], c_hi[3]))


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def percentile(views: float, a: AtAge) -> float | None:
    if a.p50 <= 0:
        return None
    if views <= 0:
        return 0.0
    side = a.p90 / a.p50 if views >= a.p50 else a.p50 / a.p10 if a.p10 > 0 else 0.0
    if side <= 1.0:
        return 100.0 if views > a.p50 else 0.0 if views < a.p50 else 50.0
    z = math.log(views / a.p50) / (math.log(side) / _Z90)
    return round(100.0 * _phi(z), 1)


def accelerating(
    published_at: datetime, snapshots: Sequence[tuple[datetime, int | None]]
) -> bool | None:
    """Views per hour over the last interval above the previous one's; None with fewer than
    two intervals (publication counts as a snapshot of 0 views)."""
    pts = [(published_at, 0.0)] + [(t, float(v)) for t, v in sorted(snapshots) if v is not None]
    pts = [p for i, p in enumerate(pts) if i == 0 or p[0] > pts[i - 1][0]]
    if len(pts) < 3:
        return None
    (t0, v0), (t1, v1), (t2, v2) = pts[-3:]
    prev = (v1 - v0) / ((t1 - t0).total_seconds() / 3600.0)
    gain = v2 - v1
    # The views the last interval would have had at the previous interval's pace; more than
    # counting noise above it (whole views, uneven intervals) is acceleration.
    # Counts can fall between crawls (removed views, a rounded count read after an exact
    # one): a falling previous interval expects no views, not fewer than none.
    expected = max(0.0, prev) * (t2 - t1).total_seconds() / 3600.0
    noise = max(ACCELERATING_MIN_VIEWS, 2.0 * math.sqrt(expected))
    # A post that has stopped growing is not accelerating on a few views of noise either.
    return gain - expected > noise and gain >= ACCELERATING_MIN_GAIN * v2


def confidence(post_count: int) -> str:
    return next(label for floor, label in CONFIDENCE if post_count >= floor)


def _projected(
    views: float, now: AtAge, then: AtAge | None, hours: float, horizon: int, pace: float | None
) -> ViewsRange | None:
    if hours >= horizon:
        return {"low": views, "expected": views, "high": views}
    if then is None or now.p50 <= 0:
        return None
    growth = max(1.0, then.p50 / now.p50)
    expected = views * growth
    spread = SPREAD_BASE + SPREAD_PER_GROWTH * math.log(growth)
    high = expected * math.exp(spread)
    if pace is not None:
        # An accelerating post may keep its latest pace: the range reaches that far.
        high = max(high, views + pace * (horizon - hours))
    return {
        "low": round(max(views, expected * math.exp(-spread))),
        "expected": round(expected),
        "high": round(high),
    }


def latest_pace(snapshots: Sequence[tuple[datetime, int | None]]) -> float | None:
    """Views per hour between the last two snapshots."""
    pts = [(t, float(v)) for t, v in sorted(snapshots) if v is not None]
    if len(pts) < 2 or pts[-1][0] <= pts[-2][0]:
        return None
    (t1, v1), (t2, v2) = pts[-2:]
    return (v2 - v1) / ((t2 - t1).total_seconds() / 3600.0)


def project(
    *,
    views: int | None,
    published_at: datetime,
    at: datetime,
    snapshots: Sequence[tuple[datetime, int | None]],
    curve: Curve | None,
    three_month_average: float | None,
) -> StoredProjection | None:
    """The projection of a post crawled at `at`, or None when it cannot be made."""
    hours = (at - published_at).total_seconds() / 3600.0
    if views is None or curve is None or hours > PROJECTION_MAX_AGE_HOURS:
        return None
    now = at_age(curve, hours)
    if now is None or now.p50 <= 0:
        return None
    accel = accelerating(published_at, snapshots)
    pace = latest_pace(snapshots) if accel else None
    p7, p30 = (_projected(float(views), now, at_age(curve, horizon), hours, horizon, pace)
               for horizon in (HORIZON_7D, HORIZON_30D))
    return {
        "as_of": at.isoformat(),
        "age_hours": round(hours, 2),
        "percentile_now": percentile(float(views), now),
        "vs_median_now": round(views / now.p50, 4),
        "expected_views_now": {"p10": round(now.p10), "p50": round(now.p50),
                               "p90": round(now.p90)},
        "accelerating": accel,
        "rising": bool(views > now.p90 and views >= RISING_MIN_VS_MEDIAN * now.p50 and accel),
        "confidence": confidence(now.post_count),
        "curve_post_count": now.post_count,
        "projected_views_7d": p7,
        "projected_views_30d": p30,
        "projected_outlier_score": (
            round(p30["expected"] / three_month_average, 4)
            if p30 is not None and three_month_average else None
        ),
    }
