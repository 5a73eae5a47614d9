"""TikTok's two copies of every count, reconciled.

TikTok sends each count twice: `stats` (numbers, display-rounded once they pass 1,000:
427,682 followers arrive as 427700, 59,149 saves as 59100) and `statsV2` (strings, usually
exact). yt-dlp reads `stats` only. We take `statsV2` wherever it is present. A count is
flagged `rounded` when it came from `stats` alone and is 1,000 or more (TikTok shows exact
figures below that), or when it has the shape of TikTok's display rounding — four or more
digits, at most three of them significant — and no differing copy proves it exact:
`statsV2` itself carries such values for busy posts (866000 likes, "14200000" plays beside
an exact "59149" saves, in the recorded responses of tests/fixtures/platforms/README.md), and
data providers pass them on as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sors.platforms.live.common import to_int

# Our field -> TikTok's key in `stats` / `statsV2`.
POST_COUNTS = {
    "views": "playCount",
    "likes": "diggCount",
    "comments": "commentCount",
    "shares": "shareCount",
    "saves": "collectCount",
}


def looks_display_rounded(n: int) -> bool:
    """Four or more digits, at most three significant: what "866K" or "14.2M" stands for."""
    return n >= 1_000 and len(str(n).rstrip("0")) <= 3


@dataclass(frozen=True, slots=True)
class Counts:
    values: dict[str, int | None]
    approximations: dict[str, str] = field(default_factory=dict)


def reconcile(
    keys: Mapping[str, str],
    stats: Mapping[str, Any] | None,
    stats_v2: Mapping[str, Any] | None,
    fallback: Mapping[str, Any] | None = None,
) -> Counts:
    """Each count from `statsV2` when present, else `stats`, else `fallback` (yt-dlp's
    reading); flagged `hidden` when absent and `rounded` when it may be a display rounding
    that no exact value contradicts."""
    stats, stats_v2, fallback = stats or {}, stats_v2 or {}, fallback or {}
    values: dict[str, int | None] = {}
    flags: dict[str, str] = {}
    for name, key in keys.items():
        exact = to_int(stats_v2.get(key))
        shown = to_int(stats.get(key))
        value = exact if exact is not None else shown
        if value is None:
            value = to_int(fallback.get(name))  # yt-dlp's reading: `stats` again
        values[name] = value
        if value is None:
            flags[name] = "hidden"
        elif exact is not None and shown is not None and exact != shown:
            continue  # the exact copy differs from the rounded one: it is the exact one
        elif (exact is None and value >= 1_000) or looks_display_rounded(value):
            flags[name] = "rounded"
    return Counts(values, flags)
