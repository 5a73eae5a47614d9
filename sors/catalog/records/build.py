"""The post and profile records and the page envelope (docs/API.md): snake_case shapes
built from plain row mappings (see `catalog.repository`): the post columns under their own
names, the owner's columns prefixed `profile_`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sors.catalog.ingest.scoring import DEFAULT_MIN_AGE_HOURS
from sors.catalog.ingest.trajectory import PROJECTION_MAX_AGE_HOURS
from sors.catalog.models import WINDOWS
from sors.kit import clock
from sors.kit.clock import isoformat
from sors.platforms import taxonomy
from sors.platforms.handles import InvalidHandle
from sors.platforms.urls import profile_url


def _round(v: float | None, digits: int) -> float | None:
    return None if v is None else round(float(v), digits)


def outlier_scores(row: Mapping[Any, Any]) -> dict[str, float | None]:
    return {w: _round(row[f"score_{w}"], 4) for w in WINDOWS}


def robust_scores(row: Mapping[Any, Any]) -> dict[str, dict[str, Any]]:
    """Per window: the score against the median of the creator's other posts of the same
    format, with the median and how many posts it was taken over."""
    medians = ((row.get("baselines") or {}).get("median")) or {}
    out: dict[str, dict[str, Any]] = {}
    for w in WINDOWS:
        m = medians.get(w) or {}
        out[w] = {
            "score": _round(row.get(f"mscore_{w}"), 4),
            "median_views": _round(m.get("views"), 2),
            "post_count": int(m.get("post_count") or 0),
        }
    return out


def age_adjusted_score(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The score against the median views of the creator's other posts at the same age."""
    a = ((row.get("baselines") or {}).get("age")) or {}
    return {
        "score": _round(row.get("age_score"), 4),
        "expected_views": _round(a.get("expected_views"), 2),
        "post_count": int(a.get("post_count") or 0),
        "age_hours": _round(a.get("age_hours"), 2),
    }


def projection(row: Mapping[Any, Any]) -> dict[str, Any] | None:
    """The stored projection (catalog.rising), while the post is younger than 30 days."""
    proj = row.get("projection")
    published = row.get("published_at")
    if not proj or published is None:
        return None
    if (clock.now() - published).total_seconds() > PROJECTION_MAX_AGE_HOURS * 3600:
        return None
    return {**proj, "as_of": isoformat(datetime.fromisoformat(proj["as_of"]))}


def score_status(row: Mapping[Any, Any], min_age_hours: float = DEFAULT_MIN_AGE_HOURS) -> str:
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


def _post_core(row: Mapping[Any, Any]) -> dict[str, Any]:
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
        "robust_scores": robust_scores(row),
        "age_adjusted_score": age_adjusted_score(row),
        "score_status": score_status(row),
        "velocity": _round(row.get("velocity"), 2),
        "projection": projection(row),
        "approximations": dict(row.get("approximations") or {}),
        "thumbnail_url": row["thumbnail_url"],
        "stats_updated_at": isoformat(row["stats_updated_at"]),
        "first_seen_at": isoformat(row["first_seen_at"]),
        "deleted_at": isoformat(row["deleted_at"]),
        "has_transcript": bool(row["has_transcript"]),
        "has_visual_analysis": bool(row["has_visual_analysis"]),
    }


def post_record(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The post record with its owner nested under `profile`."""
    out = _post_core(row)
    out["profile"] = {
        "id": row["profile_id"],
        "platform": row["platform"],
        "handle": row["profile_handle"],
        "display_name": row["profile_display_name"],
        "follower_count": row["profile_follower_count"],
        "is_active": row["profile_is_active"],
        "avatar_url": row["profile_avatar_url"],
        "averages": averages(row["profile_averages"]),
    }
    return out


def flat_post(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The flattened shape: search results, trends, trending, updates, recent posts."""
    out = _post_core(row)
    out["profile_id"] = row["profile_id"]
    out["handle"] = row["profile_handle"]
    out["display_name"] = row["profile_display_name"]
    out["follower_count"] = row["profile_follower_count"]
    out["is_active"] = row["profile_is_active"]
    return out


def averages(raw: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """One entry per window; a window the profile was never scored on reads as empty."""
    raw = raw or {}
    out: dict[str, dict[str, Any]] = {}
    for w in WINDOWS:
        a = raw.get(w) or {}
        out[w] = {
            "views": _round(a.get("views"), 2),
            "likes": _round(a.get("likes"), 2),
            "engagement_rate": _round(a.get("engagement_rate"), 4),
            "post_count": int(a.get("post_count") or 0),
            "young_post_count": int(a.get("young_post_count") or 0),
        }
    return out


def profile_approximations(row: Mapping[Any, Any]) -> dict[str, str]:
    if row.get("follower_count") is None:
        return {"follower_count": "hidden"}
    return {"follower_count": "rounded"} if row.get("follower_count_approximate") else {}


def categories(ids: Sequence[str]) -> list[dict[str, str]]:
    known = taxonomy.by_id()
    return [{"id": c, "name": known[c].name} for c in ids if c in known]


def profile_record(row: Mapping[Any, Any], category_ids: Sequence[str] = ()) -> dict[str, Any]:
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


def page_envelope(
    results: list[dict[str, Any]],
    *,
    page: int,
    page_size: int,
    total: int,
    capped: bool,
    has_more: bool,
) -> dict[str, Any]:
    return {
        "results": results,
        "page": page,
        "pageSize": page_size,
        "total": total,
        "totalCapped": capped,
        "hasMore": has_more,
    }
