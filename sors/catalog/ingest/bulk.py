"""Bulk writes of the catalog: one array per column through unnest(), so a batch is one
short constant statement whatever its row count (no per-row SQL to build or parse)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import NotRequired, SupportsFloat, TypedDict

import orjson

from sors.platforms.base import SoundRef


class StagedPost(TypedDict):
    """A crawled post as ingest stages it (`catalog.ingest.service._post_row`): the columns
    of `POST_COLS`, then what ingest learns of it against the catalog."""

    id: str
    profile_id: str
    platform: str
    platform_post_id: str
    url: str
    content_type: str
    caption: str | None
    published_at: datetime
    duration_seconds: float | None
    views: int | None
    likes: int | None
    comments: int | None
    shares: int | None
    engagement_rate: float | None
    thumbnail_url: str | None
    approximations: dict[str, str]
    extra: dict[str, object]  # the source's own extras, as it gave them
    stats_updated_at: datetime
    first_seen_at: datetime
    sound_id: str | None  # catalog.usage.models.Sound, once resolved (catalog.ingest.usage)
    is_new: bool  # not in the catalog yet
    sound: NotRequired[SoundRef | None]  # as the source named it
    caption_changed: NotRequired[bool]
    caption_before: NotRequired[str | None]


POST_COLS = (
    ("id", "text"),
    ("profile_id", "text"),
    ("platform", "text"),
    ("platform_post_id", "text"),
    ("url", "text"),
    ("content_type", "text"),
    ("caption", "text"),
    ("published_at", "timestamptz"),
    ("duration_seconds", "float8"),
    ("views", "int8"),
    ("likes", "int8"),
    ("comments", "int8"),
    ("shares", "int8"),
    ("engagement_rate", "float8"),
    ("thumbnail_url", "text"),
    ("approximations", "jsonb"),
    ("extra", "jsonb"),
    ("stats_updated_at", "timestamptz"),
    ("first_seen_at", "timestamptz"),
    ("sound_id", "text"),
)
# What a crawl refreshes on a post it already has (never its id, platform key, publication
# time or first sighting). Not the caption: the search vector and the post's ideas are
# computed from it, and a column named in an UPDATE's SET list has them recomputed even when
# its value is the same, so an edited caption (rare) is written by a statement of its own
# (catalog.ingest) and a re-crawl leaves both alone.
POST_UPDATED = (
    "profile_id",
    "url",
    "content_type",
    "duration_seconds",
    "views",
    "likes",
    "comments",
    "shares",
    "engagement_rate",
    "thumbnail_url",
    "approximations",
    "extra",
    "stats_updated_at",
)


def arrays(cols: tuple[tuple[str, str], ...], prefix: str = "") -> str:
    """`CAST(:name AS type[])` for each column, in order (for unnest)."""

    def one(name: str, typ: str) -> str:
        if typ == "jsonb":  # sent as text, parsed by the server
            return f"CAST(CAST(:{prefix}{name} AS text[]) AS jsonb[])"
        return f"CAST(:{prefix}{name} AS {typ}[])"

    return ", ".join(one(n, t) for n, t in cols)


def columns(
    rows: Sequence[Mapping[str, object]], cols: tuple[tuple[str, str], ...], prefix: str = ""
) -> dict[str, list[object]]:
    """The bind parameters of `arrays(cols, prefix)` for these rows."""
    out: dict[str, list[object]] = {}
    for name, typ in cols:
        if typ == "jsonb":
            out[prefix + name] = [orjson.dumps(r[name]).decode() for r in rows]
        elif typ == "float8":  # one Python type per list: sent in binary (kit.db.binary_sql)
            out[prefix + name] = [_float(r[name]) for r in rows]
        else:
            out[prefix + name] = [r[name] for r in rows]
    return out


def _float(v: object) -> float | None:
    if v is None:
        return None
    if not isinstance(v, SupportsFloat):
        raise TypeError(f"a float8 column holds {v!r}")
    return float(v)
