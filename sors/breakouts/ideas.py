"""Ingest's part of breakouts: store each new or re-captioned post's ideas.

One set-based statement per ingest batch. Unchanged captions (the common re-crawl) cost a
key lookup and an md5 per post; only new posts and edited captions run the extraction
functions of migration 0014, the one definition of a hashtag and a phrase.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.platforms.base import CrawlSnapshot

_WRITE = text("""
WITH todo AS (
    SELECT p.id, p.caption, CAST(md5(coalesce(p.caption, '')) AS uuid) AS caption_md5
    FROM unnest(CAST(:platform AS text[]), CAST(:post_id AS text[])) AS k(platform, post_id)
    JOIN posts p ON p.platform = k.platform AND p.platform_post_id = k.post_id
    LEFT JOIN post_ideas i ON i.post_id = p.id
    WHERE i.caption_md5 IS DISTINCT FROM CAST(md5(coalesce(p.caption, '')) AS uuid)
)
INSERT INTO post_ideas (post_id, caption_md5, hashtags, phrases)
SELECT id, caption_md5, sors_caption_hashtags(caption), sors_caption_phrases(caption)
FROM todo
ON CONFLICT (post_id) DO UPDATE
   SET caption_md5 = EXCLUDED.caption_md5, hashtags = EXCLUDED.hashtags,
       phrases = EXCLUDED.phrases
""")


async def write_post_ideas(session: AsyncSession, snapshots: Sequence[CrawlSnapshot]) -> None:
    """After the posts of `snapshots` are upserted, in the same transaction."""
    await write_ideas(session, {(p.platform, p.platform_post_id) for s in snapshots for p in s.posts})


async def write_ideas(session: AsyncSession, keys: Iterable[tuple[str, str]]) -> None:
    """The same for posts named by (platform, platform_post_id), e.g. after a bulk COPY."""
    unique = set(keys)  # ON CONFLICT DO UPDATE may not meet one row twice
    if unique:
        platforms, post_ids = zip(*unique, strict=True)
        await session.execute(_WRITE, {"platform": list(platforms), "post_id": list(post_ids)})
