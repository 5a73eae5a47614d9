"""The post and profile records (docs/API.md), built from plain row mappings (see
`catalog.records.repository`): the post columns under their own names, the owner's columns
prefixed `profile_`.

The records are response models put together with `kit.responses.assemble`: the rows are
the catalog's own, typed by their columns, so the hot reads render them without validating
them again (`kit.responses.ModelResponse`), with their keys in the order built here.

What a record says depends on when it is read (a projection is shown until the post is 30
days old) and on the baseline's minimum age (`settings.jobs.baseline_min_age_hours`): both
are handed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sors.catalog.ingest.trajectory import PROJECTION_MAX_AGE_HOURS
from sors.catalog.models import WINDOWS, TranscriptRecord, VisualAnalysisRecord
from sors.catalog.records import baselines
from sors.catalog.records.analysis_schemas import Analysis
from sors.catalog.records.schemas import (
    AgeAdjustedScore,
    CategoryRef,
    ExpectedViewsNow,
    FlatPost,
    OutlierScores,
    PostGrowth,
    PostOwner,
    PostRecord,
    ProfileAverages,
    ProfileRecord,
    ProjectedViews,
    Projection,
    RobustScore,
    RobustScores,
    Scene,
    ScoreStatus,
    TranscriptOut,
    TranscriptSegment,
    VisualAnalysisOut,
    WindowAverage,
)
from sors.kit.clock import isoformat
from sors.kit.responses import assemble
from sors.platforms import taxonomy
from sors.platforms.handles import InvalidHandle
from sors.platforms.urls import profile_url


def _round(v: float | None, digits: int) -> float | None:
    return None if v is None else round(float(v), digits)


def window_score(row: Mapping[Any, Any], window: str, method: str) -> float | None:
    """The score a search filters and sorts by, as the record shows it: the window's mean
    score, its median score, or the (window-free) age-matched score."""
    if method == "age_adjusted":
        return _round(row.get("age_score"), 4)
    if method == "median":
        return _round(row.get(f"mscore_{window}"), 4)
    return _round(row[f"score_{window}"], 4)


def outlier_scores(row: Mapping[Any, Any]) -> OutlierScores:
    return assemble(OutlierScores, {w: window_score(row, w, "mean") for w in WINDOWS})


def robust_scores(row: Mapping[Any, Any]) -> RobustScores:
    """Per window: the score against the median of the creator's other posts of the same
    format, with the median and how many posts it was taken over."""
    medians = ((row.get("baselines") or {}).get("median")) or {}
    out: dict[str, object] = {}
    for w in WINDOWS:
        m = medians.get(w) or {}
        out[w] = assemble(RobustScore, {
            "score": window_score(row, w, "median"),
            "median_views": _round(m.get("views"), 2),
            "post_count": int(m.get("post_count") or 0),
        })
    return assemble(RobustScores, out)


def age_adjusted_score(row: Mapping[Any, Any]) -> AgeAdjustedScore:
    """The score against the median views of the creator's other posts at the same age."""
    a = ((row.get("baselines") or {}).get("age")) or {}
    return assemble(AgeAdjustedScore, {
        "score": window_score(row, "", "age_adjusted"),
        "expected_views": _round(a.get("expected_views"), 2),
        "post_count": int(a.get("post_count") or 0),
        "age_hours": _round(a.get("age_hours"), 2),
    })


def _views(stored: Mapping[str, int | float] | None) -> ProjectedViews | None:
    return None if stored is None else assemble(ProjectedViews, dict(stored))


def projection(row: Mapping[Any, Any], now: datetime) -> Projection | None:
    """The stored projection (`catalog.ingest.projections`), while the post is younger than
    30 days at `now`."""
    proj = row.get("projection")
    published = row.get("published_at")
    if not proj or published is None:
        return None
    if (now - published).total_seconds() > PROJECTION_MAX_AGE_HOURS * 3600:
        return None
    # In the order it was stored (jsonb's own), as the records have always listed it.
    fields: dict[str, object] = dict(proj)
    fields["as_of"] = isoformat(datetime.fromisoformat(proj["as_of"]))
    fields["expected_views_now"] = assemble(ExpectedViewsNow, dict(proj["expected_views_now"]))
    for horizon in ("projected_views_7d", "projected_views_30d"):
        fields[horizon] = _views(proj.get(horizon))
    return assemble(Projection, fields)


def score_status(row: Mapping[Any, Any], min_age_hours: float) -> ScoreStatus:
    """`mature`: the post was old enough at the crawl that scored it for its window scores to
    compare like with like (the baselines count only posts that old). Younger, its views are
    still coming in: `age_adjusted` when the age-matched score exists (show that one), else
    `too_young` (no fair score yet)."""
    published, scored = row["published_at"], row["stats_updated_at"]
    if published is None or scored is None:
        return "mature"
    if (scored - published).total_seconds() >= min_age_hours * 3600.0:
        return "mature"
    return "age_adjusted" if row.get("age_score") is not None else "too_young"


def _core(row: Mapping[Any, Any], now: datetime, min_age_hours: float) -> dict[str, object]:
    """The fields every post shape shares (`schemas._PostCore`), in the records' order."""
    return {
        "id": row["id"],
        "platform": row["platform"],
        "platform_post_id": row["platform_post_id"],
        "url": row["url"],
        "content_type": row["content_type"],
        "caption": row["caption"],
        "published_at": isoformat(row["published_at"]),
        "duration_seconds": row["duration_seconds"],
        "views": row["views"],
        "likes": row["likes"],
        "comments": row["comments"],
        "shares": row["shares"],
        "engagement_rate": _round(row["engagement_rate"], 6),
        "outlier_scores": outlier_scores(row),
        "score_baselines": baselines.score_baselines(row),
        "robust_scores": robust_scores(row),
        "age_adjusted_score": age_adjusted_score(row),
        "score_status": score_status(row, min_age_hours),
        "velocity": _round(row.get("velocity"), 2),
        "view_epoch": baselines.view_epoch(baselines.epoch(row)),
        "other_view_counts": dict(row.get("other_view_counts") or {}),
        "engagement_anomaly": baselines.engagement_anomaly(row),
        "projection": projection(row, now),
        "approximations": dict(row.get("approximations") or {}),
        "thumbnail_url": row["thumbnail_url"],
        "stats_updated_at": isoformat(row["stats_updated_at"]),
        "first_seen_at": isoformat(row["first_seen_at"]),
        "deleted_at": isoformat(row["deleted_at"]),
        "has_transcript": bool(row["has_transcript"]),
        "has_visual_analysis": bool(row["has_visual_analysis"]),
        "sound_id": row.get("sound_id"),
    }


def flat_fields(row: Mapping[Any, Any], now: datetime, min_age_hours: float) -> dict[str, object]:
    """The flattened post's fields: for `FlatPost` and the shapes that extend it (a search's
    scored post, a rising post)."""
    return {
        **_core(row, now, min_age_hours),
        "profile_id": row["profile_id"],
        "handle": row["profile_handle"],
        "display_name": row["profile_display_name"],
        "follower_count": row["profile_follower_count"],
        "is_active": row["profile_is_active"],
    }


def flat_post(row: Mapping[Any, Any], now: datetime, min_age_hours: float) -> FlatPost:
    """The flattened shape: search results, trends, trending, updates, recent posts."""
    return assemble(FlatPost, flat_fields(row, now, min_age_hours))


def post_record(
    row: Mapping[Any, Any], now: datetime, min_age_hours: float, *, growth: PostGrowth,
    transcript: TranscriptOut | None = None, visual_analysis: VisualAnalysisOut | None = None,
    analysis: Analysis | None = None,
) -> PostRecord:
    """The post record with its owner nested under `profile`; the transcript, visual
    analysis and breakdown are in the record only when given."""
    fields = _core(row, now, min_age_hours)
    fields["profile"] = assemble(PostOwner, {
        "id": row["profile_id"],
        "platform": row["platform"],
        "handle": row["profile_handle"],
        "display_name": row["profile_display_name"],
        "follower_count": row["profile_follower_count"],
        "is_active": row["profile_is_active"],
        "avatar_url": row["profile_avatar_url"],
        "averages": averages(row["profile_averages"]),
    })
    fields["growth"] = growth
    for name, value in (("transcript", transcript), ("visual_analysis", visual_analysis),
                        ("analysis", analysis)):
        if value is not None:
            fields[name] = value
    return assemble(PostRecord, fields)


def averages(raw: Mapping[str, Any] | None) -> ProfileAverages:
    """One entry per window; a window the profile was never scored on reads as empty."""
    raw = raw or {}
    out: dict[str, object] = {}
    for w in WINDOWS:
        a = raw.get(w) or {}
        n, days = int(a.get("post_count") or 0), _round(a.get("days_covered"), 2)
        out[w] = assemble(WindowAverage, {
            "views": _round(a.get("views"), 2),
            "likes": _round(a.get("likes"), 2),
            "engagement_rate": _round(a.get("engagement_rate"), 4),
            "post_count": n,
            "young_post_count": int(a.get("young_post_count") or 0),
            "days_covered": days,
            "quality": baselines.quality(n, days, w),
        })
    return assemble(ProfileAverages, out)


def profile_approximations(row: Mapping[Any, Any]) -> dict[str, str]:
    if row.get("follower_count") is None:
        return {"follower_count": "hidden"}
    return {"follower_count": "rounded"} if row.get("follower_count_approximate") else {}


def categories(ids: Sequence[str]) -> list[CategoryRef]:
    known = taxonomy.by_id()
    return [assemble(CategoryRef, {"id": c, "name": known[c].name}) for c in ids if c in known]


def profile_fields(row: Mapping[Any, Any], category_ids: Sequence[str] = ()) -> dict[str, object]:
    """The profile record's fields: for `ProfileRecord` and the shapes that extend it (a
    profile with its recent posts, a similar profile)."""
    url = row["url"]
    if not url:
        try:
            url = profile_url(row["platform"], row["handle"])
        except InvalidHandle:
            url = None
    return {
        "id": row["id"],
        "platform": row["platform"],
        "handle": row["handle"],
        "display_name": row["display_name"],
        "url": url,
        "bio": row["bio"],
        "avatar_url": row["avatar_url"],
        "follower_count": row["follower_count"],
        "approximations": profile_approximations(row),
        "tracked_post_count": row["tracked_post_count"],
        "averages": averages(row["averages"]),
        "categories": categories(category_ids),
        "is_active": row["is_active"],
        "last_crawled_at": isoformat(row["last_crawled_at"]),
        "first_seen_at": isoformat(row["first_seen_at"]),
    }


def profile_record(row: Mapping[Any, Any], category_ids: Sequence[str] = ()) -> ProfileRecord:
    return assemble(ProfileRecord, profile_fields(row, category_ids))


# JSONB stores keys in its own order; the records answer in the documented one.
def transcript_record(t: TranscriptRecord) -> TranscriptOut:
    return assemble(TranscriptOut, {
        "text": t.text,
        "language": t.language,
        "source": t.source,
        "segments": [
            assemble(TranscriptSegment, {k: seg.get(k) for k in ("start", "end", "text")})
            for seg in t.segments or []
        ],
        "created_at": isoformat(t.created_at),
    })


def visual_analysis_record(v: VisualAnalysisRecord) -> VisualAnalysisOut:
    keys = ("index", "start", "end", "on_screen_text", "dominant_colors")
    return assemble(VisualAnalysisOut, {
        "scene_count": v.scene_count,
        "avg_scene_seconds": v.avg_scene_seconds,
        "scenes": [assemble(Scene, {k: scene.get(k) for k in keys}) for scene in v.scenes or []],
        "on_screen_text": v.on_screen_text,
        "created_at": isoformat(v.created_at),
    })


def page_envelope(
    results: Sequence[object],
    *,
    page: int,
    page_size: int,
    total: int,
    capped: bool,
    has_more: bool,
) -> dict[str, object]:
    """A page of a search the catalog does not shape itself (hooks, `sors.analyses`)."""
    return {
        "results": results,
        "page": page,
        "pageSize": page_size,
        "total": total,
        "totalCapped": capped,
        "hasMore": has_more,
    }
