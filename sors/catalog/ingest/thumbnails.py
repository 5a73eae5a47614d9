"""Thumbnail changes: a budgeted check, YouTube first, of freshly crawled posts' thumbnails.

Each look fetches the image the platform serves at the post's thumbnail URL (through the
adapter, from the platform's own hosts), keeps its 64-bit perceptual hash (pHash), and when
the new hash is further than `CHANGED_BITS` from the last one, records a change in
`post_changes` (field `thumbnail`, the two hashes) at the crawl that showed it. A post is
looked at again only after a newer crawl. A URL that cannot be fetched is skipped until then.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import imagehash
import structlog
from PIL import Image
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.ids import new_id

log = structlog.get_logger(__name__)

# pHash distances: a re-encoded or resized copy of one image stays within a few bits; a new
# picture lands near 32 (half of the 64 bits).
CHANGED_BITS = 12

_DUE = text("""
SELECT p.id, p.platform, p.thumbnail_url, p.thumbnail_hash, p.stats_updated_at, p.profile_id
  FROM posts p
 WHERE p.thumbnail_url IS NOT NULL AND p.deleted_at IS NULL
   AND (p.thumbnail_checked_at IS NULL OR p.thumbnail_checked_at < p.stats_updated_at)
 ORDER BY p.platform = 'youtube' DESC, p.stats_updated_at DESC, p.id
 LIMIT :n
""")
_SEEN = text("""
UPDATE posts SET thumbnail_hash = coalesce(:hash, thumbnail_hash), thumbnail_checked_at = :at
 WHERE id = :id
""")
_CHANGED = text("""
INSERT INTO post_changes (id, post_id, field, before, after, changed_at)
VALUES (:id, :post_id, 'thumbnail', :before, :after, :at)
""")


@dataclass(frozen=True, slots=True)
class Changed:
    post_id: str
    profile_id: str
    at: datetime


def phash(image: bytes) -> str:
    with Image.open(io.BytesIO(image)) as img:
        return str(imagehash.phash(img.convert("RGB")))


def distance(a: str, b: str) -> int:
    return int(imagehash.hex_to_hash(a) - imagehash.hex_to_hash(b))


async def check(session: AsyncSession, adapter: Any, *, limit: int) -> list[Changed]:
    """Look at up to `limit` due thumbnails in the caller's transaction; the changes found."""
    fetch = getattr(adapter, "fetch_thumbnail", None)
    if fetch is None or limit <= 0:
        return []
    changed: list[Changed] = []
    for post_id, platform, url, before, at, profile_id in await session.execute(
        _DUE, {"n": limit}
    ):
        try:
            image = await fetch(platform, url)
            after = await asyncio.to_thread(phash, image)
        except Exception as exc:  # a refused or broken image: looked at again after a crawl
            log.warning("thumbnail_unavailable post=%s: %s", post_id, type(exc).__name__)
            await session.execute(_SEEN, {"hash": None, "at": at, "id": post_id})
            continue
        if before is not None and distance(before, after) > CHANGED_BITS:
            await session.execute(_CHANGED, {"id": new_id("chg"), "post_id": post_id,
                                             "before": before, "after": after, "at": at})
            changed.append(Changed(post_id, profile_id, at))
        await session.execute(_SEEN, {"hash": after, "at": at, "id": post_id})
    return changed
