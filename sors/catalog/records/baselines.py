"""What stands behind a post's window scores, read off the stored rows: each window's mean
baseline with its quality (docs/API.md, "Baseline quality"), the view definition the post's
count follows and whether the window crossed a change of it, and the engagement check.

The scoring statement (catalog.ingest.scoring) stores, on the owner's `averages`, each
window's baseline of all the creator's posts and, for a creator whose posts follow more than
one view definition, each definition's own (`averages["epochs"]`); a post's scores divide by
its own definition's. The quality rule is the one `posts.baseline_ok` holds as bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sors.catalog.ingest.scoring import BASELINE_OK_COVERAGE, BASELINE_OK_POSTS
from sors.catalog.models import WINDOWS
from sors.catalog.records.score_schemas import (
    BaselineQuality,
    DefinitionChange,
    EngagementAnomaly,
    ScoreBaseline,
    ScoreBaselines,
    ViewEpoch,
)
from sors.kit.responses import assemble
from sors.platforms import views


def _round(v: float | None, digits: int) -> float | None:
    return None if v is None else round(float(v), digits)


def quality(post_count: int, days_covered: float | None, window: str) -> BaselineQuality:
    """`thin` under BASELINE_OK_POSTS posts, or when the creator's known history covers less
    than BASELINE_OK_COVERAGE of the window (unknown coverage: scored before it was kept)."""
    days = WINDOWS[window]
    if post_count < BASELINE_OK_POSTS:
        return "thin"
    if days is not None and days_covered is not None and days_covered < days * BASELINE_OK_COVERAGE:
        return "thin"
    return "ok"


def epoch(row: Mapping[Any, Any]) -> views.ViewEpoch:
    kind = (row.get("approximations") or {}).get("views")
    return views.epoch_of(row["platform"], row["content_type"], row["published_at"], kind)


def view_epoch(e: views.ViewEpoch) -> ViewEpoch:
    return assemble(ViewEpoch, {
        "definition": e.definition,
        "since": e.since.isoformat() if e.since else None,
        "until": e.until.isoformat() if e.until else None,
    })


def _windows(entries: Mapping[str, Any] | None) -> dict[str, tuple[float | None, int, Any]]:
    """(views, post_count, days_covered) per window; a window without an entry had none."""
    entries = entries or {}
    out = {}
    for w in WINDOWS:
        e = entries.get(w) or {}
        out[w] = (e.get("views"), int(e.get("post_count") or 0), e.get("days_covered"))
    return out


def score_baselines(row: Mapping[Any, Any]) -> ScoreBaselines:
    """Per window, what the post's mean score divides by (its owner's averages, of the
    post's own view definition when the creator's posts follow several)."""
    averages = row.get("profile_averages") or {}
    e = epoch(row)
    epochs = averages.get("epochs") or {}
    own = _windows(epochs.get(str(e.key)) if epochs else averages)
    other_key = views.OLDER if e.key == views.CURRENT else views.CURRENT
    other = _windows(epochs.get(str(other_key))) if epochs else None
    other_definition = _other_definition(row, e)
    change = views.change_for(row["platform"], row["content_type"])
    out: dict[str, object] = {}
    order = list(WINDOWS)
    for i, w in enumerate(order):
        v, n, days = own[w]
        # Nested windows with as many posts hold the same posts: the shortest one stands.
        same = next((s for s in order[:i] if own[s][1] == n), None) if n > 0 else None
        crosses = None
        if other is not None and other[w][1] > 0:
            ov = other[w][0]
            crosses = assemble(DefinitionChange, {
                "definition": other_definition,
                "changed_on": change.on.isoformat() if change and (
                    e.since == change.on or e.until == change.on) else None,
                "post_count": other[w][1],
                "views": _round(ov, 2),
                "views_ratio": round(v / ov, 4) if v and ov else None,
            })
        out[w] = assemble(ScoreBaseline, {
            "views": _round(v, 2),
            "post_count": n,
            "days_covered": _round(days, 2),
            "quality": quality(n, days, w),
            "same_as": same,
            "view_definition": e.definition,
            "crosses_change": crosses,
        })
    return assemble(ScoreBaselines, out)


def _other_definition(row: Mapping[Any, Any], e: views.ViewEpoch) -> str:
    change = views.change_for(row["platform"], row["content_type"])
    if change is not None and e.definition in (change.before, change.after):
        return change.after if e.definition == change.before else change.before
    return "plays" if e.key == views.OLDER else "video_views"


def shown_score_windows(baselines: ScoreBaselines) -> list[str]:
    """The windows whose score is not a repeat of a shorter window's (the console shows
    each baseline once)."""
    return [w for w in WINDOWS if getattr(baselines, w).same_as is None]


def engagement_anomaly(row: Mapping[Any, Any]) -> EngagementAnomaly | None:
    if not row.get("engagement_anomaly"):
        return None
    e = (row.get("baselines") or {}).get("engagement") or {}
    return assemble(EngagementAnomaly, {
        "engagement_rate": _round(row.get("engagement_rate"), 6),
        "creator_median": _round(e.get("median"), 6),
        "creator_p10": _round(e.get("p10"), 6),
        "post_count": int(e.get("post_count") or 0),
        "views": row.get("views"),
        "creator_median_views": _round(e.get("median_views"), 2),
    })
