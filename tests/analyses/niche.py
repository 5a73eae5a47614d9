"""Hand-made creators of one niche for the comparison tests: vegan cooks of similar size,
whose outliers are short videos, and a creator of that niche whose only outlier is short."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from sors.catalog.models import Post, Profile
from sors.enrichment import repository as enrichment_repo
from sors.enrichment.analysis import SceneData, SegmentData
from sors.kit.db import Database
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot
from tests.factories.world import hand_post, ingest

AT = datetime(2026, 11, 1, 12, tzinfo=UTC)
BIO = "Vegan recipes: tofu, lentils and plant based dinners"
CAPTION = "Crispy tofu with lentils, a vegan dinner recipe #vegan #plantbased"
SHORT, LONG = 12.0, 40.0
HIT, USUAL = 100_000, 2_000


def crawl(handle: str, posts: list[PostSnapshot], followers: int = 5000) -> CrawlSnapshot:
    profile = ProfileSnapshot(
        platform="tiktok", handle=handle, platform_user_id=f"uid-{handle}",
        display_name=handle.title(), bio=BIO, avatar_url=None, follower_count=followers,
    )
    return CrawlSnapshot(profile=profile, posts=tuple(posts), fetched_at=AT)


def post(handle: str, n: int, days_ago: float, *, hit: bool, caption: str = CAPTION,
         duration: float | None = None) -> PostSnapshot:
    p = hand_post(handle, n, AT - timedelta(days=days_ago), views=HIT if hit else USUAL)
    return replace(p, caption=caption, duration_seconds=duration or (SHORT if hit else LONG))


async def niche(db: Database, creators: int = 6, *, per_creator: int = 10) -> None:
    """`creators` vegan cooks of 4K-8K followers, each with two short outliers among long
    ordinary videos (3-9 days old), and one big vegan cook outside the follower band."""
    for c in range(creators):
        handle = f"vegan.cook.{c}"
        # (Post numbers differ between creators: a hand-made post's id is its time and
        # number.)
        posts = [post(handle, 100 * (c + 1) + i, 3 + 6 * i / per_creator, hit=i in (2, 7))
                 for i in range(per_creator)]
        await ingest(db, crawl(handle, posts, followers=4000 + 800 * c))
    big = [post("vegan.star", 900 + i, 3 + i / 2, hit=i == 1) for i in range(per_creator)]
    await ingest(db, crawl("vegan.star", big, followers=900_000))


async def ids_of(db: Database, handle: str) -> list[tuple[str, int]]:
    """(post id, views) of the creator's posts, oldest first."""
    async with db.session() as s:
        return [(r[0], r[1]) for r in (await s.execute(
            select(Post.id, Post.views).join(Profile, Profile.id == Post.profile_id)
            .where(Profile.handle == handle).order_by(Post.published_at)
        )).all()]


def speech(text: str, *, confidence: float | None = None,
           rest: str = "Press the tofu, then bake it.") -> list[SegmentData]:
    first: SegmentData = {"start": 0.2, "end": 2.6, "text": text}
    if confidence is not None:
        first["confidence"] = confidence
    return [first, {"start": 3.0, "end": 7.0, "text": rest}]


def scenes(first_text: str = "") -> list[SceneData]:
    return [
        {"index": i, "start": s, "end": e, "on_screen_text": first_text if i == 0 else "",
         "dominant_colors": []}
        for i, (s, e) in enumerate([(0.0, 3.0), (3.0, 7.2), (7.2, 12.0)])
    ]


async def give_media(db: Database, post_id: str, segments: list[SegmentData],
                     shown: str = "") -> None:
    """A speech transcript and a scene analysis, written as enrichment writes them."""
    async with db.transaction() as s:
        await enrichment_repo.save_transcript(
            s, post_id, {"text": " ".join(x["text"] for x in segments), "language": "en",
                         "source": "speech", "segments": segments}, "test", AT)
        await enrichment_repo.save_visual_analysis(
            s, post_id, {"scene_count": 3, "avg_scene_seconds": 4.0, "scenes": scenes(shown),
                         "on_screen_text": shown})
