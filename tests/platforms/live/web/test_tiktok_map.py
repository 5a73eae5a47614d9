"""TikTok: the profile page's JSON and yt-dlp's info → snapshots, failures → typed failures."""

from __future__ import annotations

from typing import Any

import pytest

from sors.platforms.base import (
    Blocked,
    PostNotFound,
    ProfileNotFound,
    ProfilePrivate,
    RateLimited,
    TransientError,
)
from sors.platforms.live.common import (
    FailureInfo,
    listing_is_complete,
)
from sors.platforms.live.net import is_platform_url
from sors.platforms.live.web import tiktok as tt
from sors.platforms.live.web import tiktok_map as ttm
from tests.platforms.live.support import (
    FIX,
    NOW,
    at,
    load,
    tiktok_listing_entry,
    tiktok_user_detail,
)

# ---- TikTok ----------------------------------------------------------------------------


def test_tiktok_embedded_profile_json() -> None:
    scope = ttm.extract_universal_data((FIX / "tiktok/profile_page.html").read_text())
    assert "webapp.app-context" in scope
    profile = ttm.map_user_detail(scope["webapp.user-detail"], "fit.anna")
    assert profile.platform == "tiktok"
    assert profile.handle == "fit.anna"
    assert profile.platform_user_id == "6801234567890123456"
    assert profile.display_name == "Anna"
    assert profile.bio == "Home workouts, 20 min a day."
    assert profile.avatar_url is not None
    assert "cropcenter:1080:1080" in profile.avatar_url
    assert profile.follower_count == 120000
    # The same round 120000 in `stats` and `statsV2`: nothing exact contradicts TikTok's
    # display rounding, so the count is flagged (tiktok_counts; the recorded responses in
    # test_exact_counts.py show rounded and exact copies that differ).
    assert profile.follower_count_approximate is True
    assert profile.url == "https://www.tiktok.com/@fit.anna"
    assert ttm.extract_universal_data("<html>captcha</html>") == {}


def test_tiktok_profile_stats_without_v2() -> None:
    detail = tiktok_user_detail()
    del detail["userInfo"]["statsV2"]
    assert ttm.map_user_detail(detail, "fit.anna").follower_count == 120000


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.update(statusCode=10221, userInfo={}), ProfileNotFound),
        (lambda d: d.update(statusCode=10202), ProfileNotFound),
        # A private account is there, only not public: never read as gone.
        (lambda d: d.update(statusCode=10222), ProfilePrivate),
        (lambda d: d["userInfo"]["user"].update(privateAccount=True), ProfilePrivate),
        (lambda d: d["userInfo"].pop("user"), ProfileNotFound),
    ],
)
def test_tiktok_profile_missing_or_private(change: Any, expected: type) -> None:
    detail = tiktok_user_detail()
    change(detail)
    with pytest.raises(expected):
        ttm.map_user_detail(detail, "fit.anna")


def test_tiktok_listed_video() -> None:
    post = ttm.map_tiktok_post(tiktok_listing_entry("7301234567890123456"), handle="fit.anna")
    assert post is not None
    assert post.platform == "tiktok"
    assert post.platform_post_id == "7301234567890123456"
    assert post.url == "https://www.tiktok.com/@fit.anna/video/7301234567890123456"
    assert post.content_type == "video"
    assert post.caption == "3 moves for stronger glutes #fitness"
    assert post.published_at == at("2026-11-02T17:04:00Z")
    assert post.duration_seconds == 31.0
    assert (post.views, post.likes, post.comments, post.shares) == (1830000, 91000, 1200, 3100)
    assert post.thumbnail_url is not None and "-origin?" in post.thumbnail_url
    # No statsV2 in this (synthetic) listing: every count from 1,000 up comes from the
    # display-rounded `stats` alone, so each is flagged.
    assert post.approximations == {
        "views": "rounded", "likes": "rounded", "comments": "rounded", "shares": "rounded"
    }
    assert post.extra["save_count"] == 5400
    assert post.extra["author_id"] == "6801234567890123456"
    assert post.extra["pinned"] is False
    assert "images" not in post.extra


def test_tiktok_listed_slideshow() -> None:
    post = ttm.map_tiktok_post(tiktok_listing_entry("7304440005556667778"), handle="fit.anna")
    assert post is not None
    assert post.content_type == "slideshow"
    assert post.url == "https://www.tiktok.com/@fit.anna/photo/7304440005556667778"
    assert post.caption == "5 breakfasts under 400 kcal #fitness"
    assert post.published_at == at("2026-11-05T09:30:00Z")
    assert post.duration_seconds is None  # yt-dlp's 60 s is the song's length
    assert (post.views, post.likes, post.comments, post.shares) == (240000, 12100, 210, 950)
    images = post.extra["images"]
    assert len(images) == 3
    assert all(is_platform_url("tiktok", u) for u in images)
    assert images[0].split("?")[0].endswith("synthetic77781~tplv-photomode-image.jpeg")
    assert post.thumbnail_url is not None and "synthetic7778cover" in post.thumbnail_url


def test_tiktok_full_extractions() -> None:
    video = ttm.map_tiktok_post(load("tiktok/ytdlp_video.json"), handle="fit.anna")
    assert video is not None and video.content_type == "video"
    assert video.duration_seconds == 31.0
    assert (video.views, video.likes, video.comments, video.shares) == (1830000, 91000, 1200, 3100)
    slideshow_info = load("tiktok/ytdlp_slideshow.json")
    slideshow = ttm.map_tiktok_post(slideshow_info, handle="fit.anna")
    assert slideshow is not None and slideshow.content_type == "slideshow"
    assert len(slideshow.extra["images"]) == 3
    # Without our extractor's imagePost, the audio-only formats still give it away.
    del slideshow_info["tiktok_image_post"]
    bare = ttm.map_tiktok_post(slideshow_info, handle="fit.anna")
    assert bare is not None and bare.content_type == "slideshow"
    assert bare.extra["images"] == []


def test_tiktok_hidden_counts_and_bad_entries() -> None:
    entry = tiktok_listing_entry("7301234567890123456")
    entry.pop("view_count")
    post = ttm.map_tiktok_post(entry, handle="fit.anna")
    assert post is not None and post.views is None
    assert post.approximations["views"] == "hidden"
    assert ttm.map_tiktok_post({"id": "abc", "timestamp": 1}, handle="fit.anna") is None
    assert ttm.map_tiktok_post({"id": "7301234567890123456"}, handle="fit.anna") is None


def test_tiktok_crawl_listing() -> None:
    crawl = ttm.map_tiktok_crawl(
        load("tiktok/ytdlp_user_listing.json"), tiktok_user_detail(), handle="fit.anna", now=NOW
    )
    assert crawl.fetched_at == NOW
    assert crawl.profile.follower_count == 120000
    assert [p.platform_post_id for p in crawl.posts] == [
        "7245550001112223334",
        "7304440005556667778",
        "7301234567890123456",
        "7299990001112223334",
    ]
    assert crawl.posts[0].extra["pinned"] is True
    # The pinned post is older than the last listed one: the listing is not contiguous.
    assert crawl.listing_complete is False
    assert listing_is_complete(crawl.posts[1:]) is True


def test_tiktok_crawl_without_page_json() -> None:
    crawl = ttm.map_tiktok_crawl(
        load("tiktok/ytdlp_user_listing.json"), None, handle="fit.anna", now=NOW
    )
    assert crawl.profile.display_name == "Anna"
    assert crawl.profile.platform_user_id == "6801234567890123456"
    assert crawl.profile.follower_count is None


def test_tiktok_extractor_keeps_raw_fields() -> None:
    """Our yt-dlp subclass, run on raw items, adds imagePost / isPinnedItem to entries."""
    items = load("tiktok/item_list_page.json")["itemList"]
    ie = tt.user_extractor()
    parsed = [
        ie._parse_aweme_video_web(
            item, "https://www.tiktok.com/@fit.anna/video/1", item["id"], True
        )
        for item in items
    ]
    assert [bool(p.get("tiktok_pinned")) for p in parsed] == [True, False, False, False]
    assert [len((p.get("tiktok_image_post") or {}).get("images", [])) for p in parsed] == [
        0,
        3,
        0,
        0,
    ]
    listed = tiktok_listing_entry(items[1]["id"])
    assert parsed[1]["tiktok_image_post"] == listed["tiktok_image_post"]
    assert parsed[2]["view_count"] == 1830000 and parsed[2]["repost_count"] == 3100


@pytest.mark.parametrize(
    ("message", "subject", "status", "expected"),
    [
        (
            "Unable to extract secondary user ID. If you are able to get the channel_id",
            "profile",
            None,
            Blocked,
        ),
        ("Unable to extract secondary user ID.", "profile", 10221, ProfileNotFound),
        (
            "This user's account is private. Log into an account that has access",
            "profile",
            None,
            ProfilePrivate,
        ),
        ("anything at all", "profile", 10222, ProfilePrivate),
        ("Unable to extract universal data for rehydration", "post", None, Blocked),
        (
            "TikTok API keeps sending the same page. Try again with a different device_id",
            "profile",
            None,
            TransientError,
        ),
        ("Your IP address is blocked from accessing this post", "post", None, Blocked),
        (
            "You do not have permission to view this post. Log into an account that has access",
            "post",
            None,
            PostNotFound,
        ),
        ("Video not available, status code 10216", "post", None, PostNotFound),
        ("TikTok is requiring login for access to this content", "post", None, Blocked),
        (
            "Unable to download JSON metadata: HTTP Error 429: Too Many Requests",
            "profile",
            None,
            RateLimited,
        ),
        (
            "Unable to download webpage: HTTP Error 502: Bad Gateway",
            "profile",
            None,
            TransientError,
        ),
    ],
)
def test_tiktok_errors(message: str, subject: Any, status: int | None, expected: type) -> None:
    err = ttm.map_tiktok_error(FailureInfo(message=message), subject=subject, user_status=status)
    assert type(err) is expected


def test_tiktok_errors_only_warned_about() -> None:
    """yt-dlp fetches the profile page leniently: what went wrong there is a warning."""
    vague = "Unable to extract secondary user ID. If you are able to get the channel_id"
    impersonation = (
        "[tiktok:user] The extractor is attempting impersonation, but no impersonate target "
        "is available. If you encounter errors, then see  "
        "https://github.com/yt-dlp/yt-dlp#impersonation"
    )
    cases = [
        (
            "fit.anna: Unable to download user webpage: Failed to resolve 'www.tiktok.com'",
            TransientError,
        ),
        (
            "fit.anna: Unable to download user webpage: HTTP Error 429: Too Many Requests",
            RateLimited,
        ),
        ("fit.anna: Unable to download user webpage: HTTP Error 403: Forbidden", Blocked),
        ("This user's account is either private or has embedding disabled", Blocked),
    ]
    for warning, expected in cases:
        info = FailureInfo(message=vague, warnings=(impersonation, warning))
        assert type(ttm.map_tiktok_error(info, subject="profile")) is expected, warning
