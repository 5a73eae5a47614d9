"""A batch ingests as its crawls one by one would: the batched profile upsert, the batched
deletion marks and the single write of each post (staged into the score recomputation) give
the same rows as separate `ingest_crawls` calls, with a deletion, a new profile, a renamed
creator, and a profile named twice in one batch."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.base import CrawlSnapshot
from tests.catalog.ingest.test_baselines import T, post, profile

T0 = T - timedelta(days=1)


def _crawl(
    handle: str, at: Any, ids: range, bump: int = 0, uid: str | None = None,
    posted_as: str | None = None,
) -> CrawlSnapshot:
    prof = profile("tiktok", handle)
    if uid:
        prof = dataclasses.replace(prof, platform_user_id=uid)
    posts = [
        post("tiktok", f"{posted_as or handle}-{i}", T0 - timedelta(days=3 * i),
             1000 + 37 * i + bump * i)
        for i in ids
    ]
    return CrawlSnapshot(prof, posts, at)


_POSTS = text("""
SELECT pr.handle, pr.is_active, p.platform_post_id, p.views, p.deleted_at, p.stats_updated_at,
       p.first_seen_at, p.owner_followers, p.score_one_month, p.score_all_time,
       p.mscore_all_time, p.age_score, p.velocity, p.baselines,
       (SELECT count(*) FROM post_stats s WHERE s.post_id = p.id)
  FROM posts p JOIN profiles pr ON pr.id = p.profile_id
 WHERE p.platform_post_id LIKE 'zzb-%'
 ORDER BY p.platform_post_id
""")
_PROFILES = text("""
SELECT handle, is_active, renamed_to_id IS NOT NULL, tracked_post_count, averages,
       catalog_tier, last_crawled_at
  FROM profiles WHERE handle LIKE 'zzb-%' ORDER BY handle, is_active
""")


async def _outcome(db: Any, batches: list[list[CrawlSnapshot]]) -> tuple[list, list]:
    """Ingest the history, then `batches`, and read the result; everything is rolled back."""
    async with db.session() as s:
        await s.begin()
        await ingest_crawls(s, [
            _crawl("zzb-keep", T0, range(1, 9)),
            _crawl("zzb-old", T0, range(1, 7), uid="uid-zzb-renamed"),
        ])
        for batch in batches:
            await ingest_crawls(s, batch)
        posts = [tuple(r) for r in await s.execute(_POSTS)]
        profiles = [tuple(r) for r in await s.execute(_PROFILES)]
        await s.rollback()
    return posts, profiles


async def test_a_batch_writes_what_its_crawls_one_by_one_write(db: Any) -> None:
    crawls = [
        # Re-crawled a day later: views moved, post 1 (inside the listed range) is gone,
        # post 9 is new.
        _crawl("zzb-keep", T, range(2, 10), bump=5),
        _crawl("zzb-new", T, range(1, 7)),
        # The account of zzb-old under a new handle: the old row retires, posts follow.
        _crawl("zzb-renamed", T, range(1, 7), bump=2, uid="uid-zzb-renamed", posted_as="zzb-old"),
    ]
    batched = await _outcome(db, [crawls])
    one_by_one = await _outcome(db, [[c] for c in crawls])
    assert batched == one_by_one
    posts, profiles = batched
    gone = [p for p in posts if p[4] is not None]
    assert [p[2] for p in gone] == ["zzb-keep-1"]
    stats = {p[2]: p[14] for p in posts if p[0] == "zzb-keep"}
    assert stats == {"zzb-keep-1": 1, "zzb-keep-9": 1} | {f"zzb-keep-{i}": 2 for i in range(2, 9)}
    assert {p[0]: p[1:3] for p in profiles}["zzb-old"] == (False, True)  # retired, renamed
    assert {p[0] for p in posts if p[2].startswith("zzb-old-")} == {"zzb-renamed"}
    assert all(p[8] is not None for p in posts if p[4] is None)  # every live post scored


async def test_a_profile_twice_in_one_batch_is_ingested_in_order(db: Any) -> None:
    first = _crawl("zzb-keep", T - timedelta(hours=6), range(2, 9), bump=3)
    second = _crawl("zzb-keep", T, range(3, 10), bump=5)
    batched = await _outcome(db, [[first, _crawl("zzb-new", T, range(1, 7)), second]])
    one_by_one = await _outcome(db, [[first], [_crawl("zzb-new", T, range(1, 7))], [second]])
    assert batched == one_by_one
    gone = {p[2]: p[4] for p in batched[0] if p[4] is not None}
    assert gone == {"zzb-keep-1": first.fetched_at, "zzb-keep-2": second.fetched_at}


async def test_whole_and_fractional_durations_in_one_batch_are_written(db: Any) -> None:
    """A batch's columns travel as binary arrays (kit.db.binary_sql), and a binary array holds
    one Python type: adapters give whole seconds as int and fractions as float, and a batch
    mixes them (and None) in one column."""
    crawl = _crawl("zzb-durations", T, range(1, 6))
    durations = [15, 30.5, None, 61, 0.25]
    crawl = dataclasses.replace(crawl, posts=[
        dataclasses.replace(p, duration_seconds=d)
        for p, d in zip(crawl.posts, durations, strict=True)
    ])
    async with db.session() as s:
        await s.begin()
        await ingest_crawls(s, [crawl])
        stored = dict(list(await s.execute(text(
            "SELECT platform_post_id, duration_seconds FROM posts"
            " WHERE platform_post_id LIKE 'zzb-durations-%'"))))
        await s.rollback()
    assert stored == {f"zzb-durations-{i}": d for i, d in zip(range(1, 6), durations, strict=True)}
