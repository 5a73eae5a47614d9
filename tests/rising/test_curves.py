"""Creator curves and projections, checked by hand against the stored snapshots."""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta
from typing import Any

from sors.catalog.ingest import trajectory as rising
from sors.catalog.ingest.curves import CURVE_AGES_HOURS, CURVE_MIN_POST_AGE_HOURS, CURVE_MIN_POSTS
from tests.rising.conftest import END, History


def _percentile_cont(values: list[float], q: float) -> float:
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _views_at(points: list[tuple[float, float]], age: float) -> float | None:
    """Straight line between the two snapshots around `age` (publication = 0 views), when
    they are at most max(age, 2 h) apart."""
    pts = [(0.0, 0.0), *points]
    for (a_lo, v_lo), (a_hi, v_hi) in itertools.pairwise(pts):
        if a_lo < age <= a_hi and a_hi - a_lo <= max(age, 2.0):
            return v_lo + (v_hi - v_lo) * (age - a_lo) / (a_hi - a_lo)
    return None


async def _snapshots(h: History, handle: str) -> dict[str, Any]:
    rows = await h.rows(
        """SELECT p.id, p.published_at, s.crawled_at, s.views, p.content_type
             FROM posts p JOIN profiles pr ON pr.id = p.profile_id
             JOIN post_stats s ON s.post_id = p.id
            WHERE pr.handle = :h AND p.deleted_at IS NULL ORDER BY s.crawled_at""",
        h=handle,
    )
    out: dict[str, Any] = {}
    for r in rows:
        post = out.setdefault(r["id"], {"published": r["published_at"], "points": [],
                                        "ctype": r["content_type"]})
        age = (r["crawled_at"] - r["published_at"]).total_seconds() / 3600.0
        if age > 0 and r["views"] is not None:
            post["points"].append((age, float(r["views"])))
    return out


async def test_a_creators_curve_is_the_percentiles_of_its_older_posts_views_at_each_age(
    history: History,
) -> None:
    posts = await _snapshots(history, "rise.t245")
    last = max(a for p in posts.values() for a, _ in [(p["published"], 0)])
    [profile] = await history.rows(
        "SELECT id, last_crawled_at, curves_at FROM profiles WHERE handle = 'rise.t245'"
    )
    assert profile["curves_at"] == profile["last_crawled_at"]
    t = profile["last_crawled_at"]
    stored = {
        r["age_hours"]: r
        for r in await history.rows(
            "SELECT * FROM creator_curves WHERE profile_id = :p AND fmt = 'all'", p=profile["id"]
        )
    }
    checked = 0
    for age in CURVE_AGES_HOURS:
        values = [
            v
            for p in posts.values()
            if p["published"] <= t - timedelta(hours=CURVE_MIN_POST_AGE_HOURS)
            and (v := _views_at(p["points"], age)) is not None
        ]
        if not values:
            assert age not in stored
            continue
        row = stored[age]
        assert row["post_count"] == len(values)
        if len(values) < CURVE_MIN_POSTS:
            assert row["p50"] is None
            continue
        for q, col in ((0.1, "p10"), (0.5, "p50"), (0.9, "p90")):
            assert math.isclose(row[col], _percentile_cont(values, q), rel_tol=1e-9)
        checked += 1
    assert last is not None
    assert checked >= 6  # 1 h to 7 d at least


async def test_a_young_posts_projection_matches_its_curve_by_hand(history: History) -> None:
    rows = await history.rows(
        """SELECT p.id, p.views, p.published_at, p.projection, p.rising_score, p.rising,
                  pr.id AS profile_id, pr.averages
             FROM posts p JOIN profiles pr ON pr.id = p.profile_id
            WHERE pr.handle = 'rise.t245' AND p.projection IS NOT NULL
            ORDER BY p.published_at DESC LIMIT 1"""
    )
    [post] = rows
    proj = post["projection"]
    at = datetime.fromisoformat(proj["as_of"])
    hours = (at - post["published_at"]).total_seconds() / 3600.0
    assert proj["age_hours"] == round(hours, 2)
    curve = {
        r["age_hours"]: r
        for r in await history.rows(
            "SELECT * FROM creator_curves WHERE profile_id = :p AND fmt = 'all'",
            p=post["profile_id"],
        )
    }
    lo = max(a for a in CURVE_AGES_HOURS if a <= hours)
    hi = min(a for a in CURVE_AGES_HOURS if a >= hours)
    w = 0.0 if hi == lo else (math.log(hours) - math.log(lo)) / (math.log(hi) - math.log(lo))
    p50 = curve[lo]["p50"] * (curve[hi]["p50"] / curve[lo]["p50"]) ** w
    p90 = curve[lo]["p90"] * (curve[hi]["p90"] / curve[lo]["p90"]) ** w
    assert math.isclose(proj["vs_median_now"], round(post["views"] / p50, 4), rel_tol=1e-6)
    assert post["rising_score"] == proj["vs_median_now"]
    stats = await history.rows(
        """SELECT crawled_at, views FROM post_stats WHERE post_id = :p AND crawled_at <= :t
            ORDER BY crawled_at""",
        p=post["id"], t=at,
    )
    pts = [(post["published_at"], 0)] + [(s["crawled_at"], s["views"]) for s in stats]
    (t0, v0), (t1, v1), (t2, v2) = pts[-3:]
    prev = (v1 - v0) / ((t1 - t0).total_seconds() / 3600)
    expected = prev * (t2 - t1).total_seconds() / 3600
    accelerating = (v2 - v1) - expected > max(2.0, 2 * math.sqrt(expected)) and (
        v2 - v1 >= 0.01 * v2
    )
    assert proj["accelerating"] is accelerating
    assert proj["rising"] is (
        post["views"] > p90 and post["views"] >= 3 * p50 and accelerating
    )
    growth = curve[720]["p50"] / p50 if 720 in curve and curve[720]["p50"] else None
    if growth is not None:
        assert proj["projected_views_30d"]["expected"] == round(post["views"] * max(1.0, growth))
    assert at <= END


def test_a_count_that_fell_between_crawls_is_judged_not_failed_on():
    """Platforms take views back (removed bot views, a rounded count read after an exact
    one): a falling interval expects no views, so the next one's real gain is acceleration."""
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    fell = [(t0 + timedelta(hours=1), 1_000), (t0 + timedelta(hours=3), 900)]
    assert rising.accelerating(t0, fell) is False
    assert rising.accelerating(t0, [*fell, (t0 + timedelta(hours=6), 1_500)]) is True
    assert rising.accelerating(t0, [*fell, (t0 + timedelta(hours=6), 900)]) is False
