"""Posts the recorded comment files belong to, made by hand (a comment is kept only under a
post the catalog holds), and the recorded files themselves."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

from sors.kit.db import Database
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot
from tests.factories.world import hand_crawl, hand_post, ingest, scalar

SOURCES = Path(__file__).parents[1] / "fixtures" / "sources"
GOEDUITJE = SOURCES / "apify/instagram/profile_posts_goeduitje_2025-09-04.json"
KUMPARAN = SOURCES / "apify/comments/tiktok_comments_kumparan_2025-05-25.json"
IG_COMMENTS = SOURCES / "apify/comments/instagram_comments_Dbv_-xLBwQg_2026-08-12.json"
THREADS = SOURCES / "youtube_api/commentThreads_list_7ghhRHRP6t4_2022-12.json"
KUMPARAN_VIDEO = "7507890376124992786"  # every comment of the recorded file is under it


async def kumparan_post(db: Database) -> str:
    """The TikTok video the recorded comment dataset is about, as a crawl would store it;
    its post id."""
    at = datetime(2025, 5, 25, 6, 0, tzinfo=UTC)
    post = dataclasses.replace(
        hand_post("kumparan", 1, datetime(2025, 5, 24, 6, 9, tzinfo=UTC), views=900_000),
        platform_post_id=KUMPARAN_VIDEO,
        url=f"https://www.tiktok.com/@kumparan/video/{KUMPARAN_VIDEO}",
        caption="Diskon listrik 50% untuk pelanggan di bawah 1300 VA mulai Juni")
    await ingest(db, hand_crawl("kumparan", [post], at))
    return str(await scalar(db, "SELECT id FROM posts WHERE platform_post_id = :p",
                            p=KUMPARAN_VIDEO))


async def youtube_video(db: Database, video_id: str = "7ghhRHRP6t4") -> str:
    at = datetime(2022, 12, 18, tzinfo=UTC)
    profile = ProfileSnapshot(platform="youtube", handle="maroon5",
                              platform_user_id="UCBVjMGOIkavEAhyqpxJ73Dw",
                              display_name="Maroon 5", bio=None, avatar_url=None,
                              follower_count=None)
    post = PostSnapshot(
        platform="youtube", platform_post_id=video_id,
        url=f"https://www.youtube.com/watch?v={video_id}", content_type="video",
        caption="Maroon 5 - Nobody's Love (Official Music Video)",
        published_at=datetime(2020, 8, 10, tzinfo=UTC), duration_seconds=200.0,
        views=100_000_000, likes=1_000_000, comments=50_000, shares=None, thumbnail_url=None)
    return await ingest(db, CrawlSnapshot(profile=profile, posts=(post,), fetched_at=at))
