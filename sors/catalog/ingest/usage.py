"""What ingest writes for sounds and hashtags over time (catalog.usage), in the crawl's
transaction: a few constant statements per batch, whatever its size.

- `resolve_sounds`, before the posts are written: each crawled post's sound as a row of
  `sounds` (made the first time its platform and key are seen), so the post row carries
  its id.
- `record`, after them: the hashtag uses of the new posts (`hashtag_uses`), and marks for
  the publication days of every crawled post (`trend_dirty`), whose rollup the scheduler
  recomputes (catalog.usage.rollup): views and scores changed, or new posts arrived. When a
  new post makes its sound one that two creators use, the sound's other days are marked
  too: sounds one creator used are left out of the rollup.
Only the last ROLLUP_DAYS days are rolled up, so older days are neither marked nor kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.bulk import StagedPost
from sors.catalog.usage.rollup import ROLLUP_DAYS
from sors.kit.db import binary_sql, execute_rows
from sors.kit.ids import new_id

_INSERT_SOUNDS = binary_sql(text("""
INSERT INTO sounds (id, platform, sound_key, title, author, is_original, first_seen_at)
SELECT * FROM unnest(CAST(:id AS text[]), CAST(:platform AS text[]), CAST(:key AS text[]),
                     CAST(:title AS text[]), CAST(:author AS text[]),
                     CAST(:original AS bool[]), CAST(:at AS timestamptz[]))
ON CONFLICT (platform, sound_key) DO NOTHING
"""))
_SOUND_IDS = binary_sql(text("""
SELECT s.platform, s.sound_key, s.id
  FROM unnest(CAST(:platform AS text[]), CAST(:key AS text[])) AS k(platform, key)
  JOIN sounds s ON s.platform = k.platform AND s.sound_key = k.key
"""))
# Sounds a crawl saw on posts the catalog had without one (another source showed none).
_SET_SOUNDS = binary_sql(text("""
UPDATE posts p SET sound_id = u.sound_id
  FROM unnest(CAST(:id AS text[]), CAST(:sound_id AS text[])) AS u(id, sound_id)
 WHERE p.id = u.id AND p.sound_id IS DISTINCT FROM u.sound_id
"""))


async def resolve_sounds(session: AsyncSession, staged: Sequence[StagedPost]) -> None:
    """Set `sound_id` on each staged post that has a sound (new sounds inserted first); the
    posts the catalog already has get theirs with one UPDATE."""
    by_key: dict[tuple[str, str], StagedPost] = {}
    for r in staged:
        sound = r.get("sound")
        if sound is not None:
            by_key.setdefault((r["platform"], sound.key), r)
    if not by_key:
        return
    keys = list(by_key)
    sounds = [by_key[k].get("sound") for k in keys]
    await execute_rows(session, _INSERT_SOUNDS, {
        "id": [new_id("snd") for _ in keys],
        "platform": [p for p, _ in keys], "key": [k for _, k in keys],
        "title": [s.title if s else None for s in sounds],
        "author": [s.author if s else None for s in sounds],
        "original": [bool(s and s.original) for s in sounds],
        "at": [by_key[k]["stats_updated_at"] for k in keys],
    })
    # A new statement, a new snapshot: it sees rows a concurrent crawl committed meanwhile
    # (the insert above waited for them and skipped).
    ids = {(p, k): i for p, k, i in await execute_rows(session, _SOUND_IDS, {
        "platform": [p for p, _ in keys], "key": [k for _, k in keys]})}
    existing: list[tuple[str, str]] = []
    for r in staged:
        sound = r.get("sound")
        r["sound_id"] = ids.get((r["platform"], sound.key)) if sound is not None else None
        if not r["is_new"] and r["sound_id"] is not None:
            existing.append((r["id"], r["sound_id"]))
    if existing:
        await execute_rows(session, _SET_SOUNDS, {
            "id": [i for i, _ in existing], "sound_id": [s for _, s in existing]})


_MARK_DAYS = binary_sql(text("""
INSERT INTO trend_dirty (day, marked_at)
SELECT DISTINCT (t AT TIME ZONE 'UTC')::date, CAST(:now AS timestamptz)
  FROM unnest(CAST(:published AS timestamptz[])) AS t
 WHERE t >= CAST(:since AS timestamptz)
"""))
_HASHTAG_USES = binary_sql(text("""
INSERT INTO hashtag_uses (tag, day, profile_id, platform, niche)
SELECT DISTINCT t.tag, (p.published_at AT TIME ZONE 'UTC')::date, p.profile_id, p.platform,
       coalesce(n.category_id, '')
  FROM posts p
 CROSS JOIN LATERAL unnest(p.hashtags) AS t(tag)
  LEFT JOIN profile_niches n ON n.profile_id = p.profile_id
 WHERE p.id = ANY(CAST(:ids AS text[])) AND p.published_at >= CAST(:since AS timestamptz)
ON CONFLICT DO NOTHING
"""))
# A new post whose creator had no other post of its sound, where another creator has some:
# the sound is (now) shared, so every day of it is rolled up again.
_ADOPTED = binary_sql(text("""
INSERT INTO trend_dirty (day, marked_at)
SELECT DISTINCT (q.published_at AT TIME ZONE 'UTC')::date, CAST(:now AS timestamptz)
  FROM posts p
  JOIN posts q ON q.sound_id = p.sound_id AND q.published_at >= CAST(:since AS timestamptz)
 WHERE p.id = ANY(CAST(:ids AS text[])) AND p.sound_id IS NOT NULL
   AND EXISTS (SELECT 1 FROM posts o WHERE o.sound_id = p.sound_id
                  AND o.profile_id <> p.profile_id)
   AND NOT EXISTS (SELECT 1 FROM posts e WHERE e.sound_id = p.sound_id
                      AND e.profile_id = p.profile_id AND e.id <> ALL(CAST(:ids AS text[])))
"""))


async def record(session: AsyncSession, staged: Sequence[StagedPost], now: datetime) -> None:
    """After the crawl's posts are written: hashtag uses of its new posts, and marks for the
    days the rollup must recompute."""
    since = now - timedelta(days=ROLLUP_DAYS)
    published = [r["published_at"] for r in staged if r["published_at"] >= since]
    if not published:
        return
    await execute_rows(session, _MARK_DAYS, {"published": published, "now": now,
                                             "since": since})
    new = [r["id"] for r in staged if r["is_new"] and r["published_at"] >= since]
    if new:
        await execute_rows(session, _HASHTAG_USES, {"ids": new, "since": since})
    with_sound = [r["id"] for r in staged if r["is_new"] and r.get("sound_id")]
    if with_sound:
        await execute_rows(session, _ADOPTED, {"ids": with_sound, "now": now, "since": since})
