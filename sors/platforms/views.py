"""What a view is on each platform, and since when: the view-definition epochs.

A platform that changes what it counts as a view makes a creator's newer posts incomparable
with their older ones: YouTube counts a Short's view from the first frame of every play
since 2025-03-31 (the Data API's `viewCount` followed on 2025-04-30), and a long-form
video's or a live stream's since 2026-08-24; before, a view needed some watching (the
"engaged view", which survives in YouTube Analytics as `engagedViews`). A post belongs to
the definition in force for its format on the day it was published (00:00 UTC), and a
score compares it only with the creator's posts of the same definition (catalog.ingest
.scoring, through the SQL function `sors_view_epoch`, migration 0035, which states the
same table; tests/platforms/test_view_epochs.py checks that they agree).

A count a source gives in an older kind (Instagram's `video_views`, a YouTube Short's
`engaged_views` from yt-dlp; `approximations["views"]`) follows that kind's definition
whatever its date. TikTok and Instagram: no change recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

Definition = Literal["plays", "first_frame", "engaged", "video_views"]

# The epoch key the scores compare (`sors_view_epoch`): 0 the platform's current plays-like
# count, 1 the older kind.
CURRENT, OLDER = 0, 1


@dataclass(frozen=True, slots=True)
class ViewChange:
    """A platform started counting views of these formats another way on `on` (UTC)."""

    platform: str
    content_types: tuple[str, ...]
    on: date
    before: Definition
    after: Definition
    note: str


CHANGES: tuple[ViewChange, ...] = (
    ViewChange("youtube", ("short",), date(2025, 3, 31), "engaged", "first_frame",
               "Shorts: a view counts at the start of every play or replay, no minimum watch "
               "time (the Data API's viewCount from 2025-04-30)"),
    ViewChange("youtube", ("video", "live"), date(2026, 8, 24), "engaged", "first_frame",
               "long-form videos and live streams: a view counts from the first frame of "
               "playback, no minimum watch time"),
)
# The definition of each platform's counts where no change is recorded.
UNCHANGED: dict[str, Definition] = {"tiktok": "plays", "instagram": "plays"}
# Counts a source gives in an older kind than the platform's plays (`approximations`).
OLDER_KINDS: dict[str, Definition] = {"video_views": "video_views", "engaged_views": "engaged"}

DESCRIPTIONS: dict[Definition, str] = {
    "plays": "every play from its start (no change recorded)",
    "first_frame": "every playback from its first frame, no minimum watch time",
    "engaged": "a view after some watching (YouTube's engaged views)",
    "video_views": "Instagram's older video views (watched for a few seconds), not plays",
}


@dataclass(frozen=True, slots=True)
class ViewEpoch:
    """The view definition a post's count follows: `key` is what the scores compare,
    `since` / `until` the days it began and ended for the post's format (None: open)."""

    key: int
    definition: Definition
    since: date | None
    until: date | None


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def change_for(platform: str, content_type: str) -> ViewChange | None:
    return next((c for c in CHANGES if c.platform == platform
                 and content_type in c.content_types), None)


def epoch_of(
    platform: str, content_type: str, published_at: datetime, views_kind: str | None = None
) -> ViewEpoch:
    """The epoch of a post (`views_kind`: its `approximations["views"]`, if any)."""
    older = OLDER_KINDS.get(views_kind or "")
    if older is not None:
        return ViewEpoch(OLDER, older, None, None)
    change = change_for(platform, content_type)
    if change is None:
        return ViewEpoch(CURRENT, UNCHANGED.get(platform, "plays"), None, None)
    if published_at < _midnight(change.on):
        return ViewEpoch(OLDER, change.before, None, change.on)
    return ViewEpoch(CURRENT, change.after, change.on, None)


def epoch_sql() -> str:
    """The body of `sors_view_epoch(platform, content_type, published_at, views_kind)` as
    this table states it (migration 0035 holds the copy PostgreSQL runs)."""
    older = ", ".join(f"'{k}'" for k in OLDER_KINDS)
    cases = " ".join(
        f"WHEN platform = '{c.platform}' AND content_type IN "
        f"({', '.join(repr(t) for t in c.content_types)}) AND published_at < "
        f"'{c.on.isoformat()} 00:00:00+00'::timestamptz THEN {OLDER}"
        for c in CHANGES
    )
    return (f"SELECT (CASE WHEN views_kind IN ({older}) THEN {OLDER} {cases} "
            f"ELSE {CURRENT} END)::smallint")
