"""Bulk writes of the catalog: one array per column through unnest(), so a batch is one
short constant statement whatever its row count (no per-row SQL to build or parse)."""

from __future__ import annotations

from typing import Any

import orjson

# A crawled post as ingest stages it (catalog.ingest._post_row).
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
    rows: list[dict[str, Any]], cols: tuple[tuple[str, str], ...], prefix: str = ""
) -> dict[str, list]:
    """The bind parameters of `arrays(cols, prefix)` for these rows."""
    out: dict[str, list] = {}
    for name, typ in cols:
        if typ == "jsonb":
            out[prefix + name] = [orjson.dumps(r[name]).decode() for r in rows]
        elif typ == "float8":  # one Python type per list: sent in binary (kit.db.binary_sql)
            out[prefix + name] = [None if r[name] is None else float(r[name]) for r in rows]
        else:
            out[prefix + name] = [r[name] for r in rows]
    return out
