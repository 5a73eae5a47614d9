"""Exact counts and honest flags, over responses recorded from the real platforms (sources
in tests/fixtures/platforms/README.md, "Recorded responses"): TikTok's rounded `stats` and
exact `statsV2` differ there, and Instagram's listing nodes carry only video views."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.base import CrawlSnapshot
from sors.platforms.live.web import instagram_map as igm
from sors.platforms.live.web import tiktok as tt
from sors.platforms.live.web import tiktok_map as ttm
from sors.platforms.live.web.tiktok_counts import looks_display_rounded
from tests.factories import auth, create_account

FIXTURES = Path(__file__).parent.parent / "fixtures" / "platforms"


def recorded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def _through_ytdlp(item: dict[str, Any]) -> dict[str, Any]:
    """The info dict yt-dlp's own TikTok parser makes of a recorded item (offline)."""
    ie = tt.post_extractor()
    url = f"https://www.tiktok.com/@{item['author']['uniqueId']}/video/{item['id']}"
    return ie._parse_aweme_video_web(item, url, item["id"], extract_flat=True)


def _popular() -> dict[str, Any]:
    return recorded("tiktok/recorded_popular_posts.json")["data"]["itemList"][0]


def test_tiktok_post_takes_statsv2_where_yt_dlp_reads_the_rounded_copy() -> None:
    item = _popular()
    info = _through_ytdlp(item)
    assert info["save_count"] == 59100  # what yt-dlp alone reports: `stats`, rounded
    post = ttm.map_tiktok_post(info, handle="zg.520")
    assert post is not None
    assert post.extra["save_count"] == 59149  # statsV2's exact count
    # The other counts are display-rounded in both copies: kept, and flagged.
    assert (post.views, post.likes, post.comments, post.shares) == (
        14_200_000, 866_000, 18_900, 34_700
    )
    assert post.approximations == {
        "views": "rounded", "likes": "rounded", "comments": "rounded", "shares": "rounded"
    }


def test_tiktok_exact_small_counts_are_not_flagged() -> None:
    item = recorded("tiktok/recorded_user_posts.json")["data"]["itemList"][0]
    post = ttm.map_tiktok_post(_through_ytdlp(item), handle="zg.520")
    assert post is not None
    assert (post.comments, post.shares, post.extra["save_count"]) == (1_502, 2_528, 5_012)
    assert post.approximations == {"views": "rounded", "likes": "rounded"}


def test_tiktok_profile_followers_come_from_statsv2() -> None:
    detail = recorded("tiktok/recorded_user_detail.json")["data"]
    assert detail["userInfo"]["stats"]["followerCount"] == 427_700
    profile = ttm.map_user_detail(detail, "zg.520")
    assert profile.follower_count == 427_682
    assert profile.follower_count_approximate is False


def test_display_rounding_shape_is_four_or_more_digits_at_most_three_significant() -> None:
    assert [looks_display_rounded(n) for n in (999, 1_000, 59_149, 59_100, 1_585_253)] == [
        False, True, False, True, False
    ]
    assert looks_display_rounded(1_650_000) and looks_display_rounded(14_200_000)
    assert not looks_display_rounded(427_700) and not looks_display_rounded(1_655_000)


def _ig_nodes() -> list[dict[str, Any]]:
    user = recorded("instagram/recorded_timeline_media.json")["data"]["user"]
    return [e["node"] for e in user["edge_owner_to_timeline_media"]["edges"]]


def test_instagram_listing_video_views_and_missing_durations_are_flagged() -> None:
    nodes = _ig_nodes()
    reels = [igm.map_instagram_post(n) for n in nodes if n["__typename"] == "GraphVideo"]
    assert len(reels) == 9
    first = reels[0]
    assert first is not None and first.content_type == "reel" and first.views == 56
    for r in reels:
        assert r is not None and r.duration_seconds is None
        assert r.approximations == {
            "views": "video_views", "shares": "hidden", "duration_seconds": "hidden"
        }
    image = igm.map_instagram_post(next(n for n in nodes if n["__typename"] == "GraphImage"))
    assert image is not None and image.approximations == {"views": "hidden", "shares": "hidden"}


async def test_exact_counts_and_flags_reach_the_api(db, client: httpx.AsyncClient) -> None:
    at = datetime(2025, 10, 20, tzinfo=UTC)
    tiktok = ttm.map_tiktok_post(_through_ytdlp(_popular()), handle="zg.520")
    profile = ttm.map_user_detail(recorded("tiktok/recorded_user_detail.json")["data"], "zg.520")
    assert tiktok is not None
    async with db.transaction() as s:
        [tiktok_pid] = await ingest_crawls(s, [CrawlSnapshot(profile, [tiktok], at)])
        post_id = (
            await s.execute(
                text("SELECT id FROM posts WHERE platform_post_id = :p"),
                {"p": tiktok.platform_post_id},
            )
        ).scalar_one()
    _, key = await create_account(db, credits=100)
    h = auth(key)
    rec = (await client.get(f"/api/v1/posts/{post_id}", headers=h)).json()
    assert rec["views"] == 14_200_000
    assert rec["approximations"] == {
        "views": "rounded", "likes": "rounded", "comments": "rounded", "shares": "rounded"
    }
    prof = (await client.get(f"/api/v1/profiles/{tiktok_pid}", headers=h)).json()
    assert prof["follower_count"] == 427_682 and prof["approximations"] == {}
    # A profile whose only follower count is a display rounding says so.
    detail = recorded("tiktok/recorded_user_detail.json")["data"]
    del detail["userInfo"]["statsV2"]
    rounded = ttm.map_user_detail(detail, "zg.520")
    assert rounded.follower_count == 427_700 and rounded.follower_count_approximate
    found = await client.post(
        "/api/v1/search/content", json={"query": "china"}, headers=h
    )
    [hit] = [p for p in found.json()["results"] if p["id"] == post_id]
    assert hit["approximations"] == rec["approximations"]
