"""CSV renderings of the search envelopes (`Accept: text/csv`): one row per record of the
page, the same columns on every page; the paging fields travel as headers.

Text cells that a spreadsheet would run as a formula (starting with = + - @, tab or CR) are
prefixed with a single quote (OWASP's advice against CSV injection): captions and bios are
written by strangers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sors.catalog.models import WINDOWS

CSV_MEDIA_TYPE = "text/csv"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def wants_csv(accept: str | None) -> bool:
    """True when the Accept header prefers text/csv over JSON (a plain `text/csv`, or a
    list naming it before any JSON type)."""
    if not accept:
        return False
    for part in accept.split(","):
        media = part.split(";")[0].strip().lower()
        if media == CSV_MEDIA_TYPE:
            return True
        if media in ("application/json", "application/*", "*/*"):
            return False
    return False


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Mapping):
        return ";".join(f"{k}={v[k]}" for k in sorted(v))
    if isinstance(v, str) and v.startswith(_FORMULA_START):
        return "'" + v
    return v


Column = tuple[str, Callable[[Mapping[str, Any]], Any]]


def _post_columns(meaning: bool = False) -> list[Column]:
    """`meaning`: a search by meaning's, with `similarity` and `relevance` after `score`."""
    def field(name: str) -> Column:
        return name, lambda r: r.get(name)

    cols: list[Column] = [
        field(n)
        for n in (
            "id", "platform", "platform_post_id", "url", "content_type", "caption",
            "published_at", "duration_seconds", "views",
        )
    ]
    # How far the count can be read: "rounded" (the platform's rounding) or "hidden".
    cols.append(("views_approximate", lambda r: (r.get("approximations") or {}).get("views")))
    cols.append(("other_view_counts", lambda r: r.get("other_view_counts") or None))
    cols += [field(n) for n in ("likes", "comments", "shares", "engagement_rate")]
    cols.append(("engagement_anomaly", lambda r: r.get("engagement_anomaly") is not None))
    cols.append(field("score"))
    cols += [field(n) for n in (("similarity", "relevance") if meaning else ())]
    for w in WINDOWS:
        cols.append((f"outlier_score_{w}", lambda r, w=w: r["outlier_scores"][w]))
    for w in WINDOWS:
        cols.append((f"baseline_quality_{w}", lambda r, w=w: r["score_baselines"][w]["quality"]))
    for w in WINDOWS:
        cols.append((f"robust_score_{w}", lambda r, w=w: r["robust_scores"][w]["score"]))
    cols.append(("age_adjusted_score", lambda r: r["age_adjusted_score"]["score"]))
    cols += [field(n) for n in ("velocity", "approximations")]
    cols += [
        field(n)
        for n in (
            "profile_id", "handle", "display_name", "follower_count", "is_active",
            "deleted_at", "thumbnail_url", "stats_updated_at", "first_seen_at",
        )
    ]
    return cols


def _profile_columns() -> list[Column]:
    def field(name: str) -> Column:
        return name, lambda r: r.get(name)

    cols: list[Column] = [
        field(n)
        for n in (
            "id", "platform", "handle", "display_name", "url", "bio", "follower_count",
            "approximations", "tracked_post_count",
        )
    ]
    for w in WINDOWS:
        cols.append((f"avg_views_{w}", lambda r, w=w: r["averages"][w]["views"]))
        cols.append((f"avg_post_count_{w}", lambda r, w=w: r["averages"][w]["post_count"]))
    cols.append(("categories", lambda r: "|".join(c["id"] for c in r["categories"])))
    cols += [field(n) for n in ("is_active", "last_crawled_at", "first_seen_at")]
    return cols


POST_COLUMNS = _post_columns()
MEANING_POST_COLUMNS = _post_columns(meaning=True)
PROFILE_COLUMNS = _profile_columns()


def render(records: Sequence[Mapping[str, Any]], columns: Sequence[Column]) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\r\n")
    out.writerow([name for name, _ in columns])
    for r in records:
        out.writerow([_cell(get(r)) for _, get in columns])
    return buf.getvalue()


def paging_headers(envelope: Mapping[str, Any]) -> dict[str, str]:
    return {
        "X-Page": str(envelope["page"]),
        "X-Page-Size": str(envelope["pageSize"]),
        "X-Total": str(envelope["total"]),
        "X-Total-Capped": "true" if envelope["totalCapped"] else "false",
        "X-Has-More": "true" if envelope["hasMore"] else "false",
    }
