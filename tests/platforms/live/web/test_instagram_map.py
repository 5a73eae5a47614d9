"""Instagram: instaloader's structures → snapshots, its and yt-dlp's failures → typed failures,
session files."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from sors.platforms.base import (
    Blocked,
    PostNotFound,
    ProfileNotFound,
    ProfilePrivate,
    RateLimited,
    TransientError,
    UnsupportedMedia,
)
from sors.platforms.live.common import (
    FailureInfo,
)
from sors.platforms.live.net import is_platform_url
from sors.platforms.live.web import instagram as ig
from sors.platforms.live.web import instagram_map as igm
from tests.platforms.live.support import (
    NOW,
    at,
    load,
)

# ---- Instagram -------------------------------------------------------------------------


def test_instagram_profile() -> None:
    profile = igm.map_instagram_profile(load("instagram/profile.json"), "cookwithsam")
    assert profile.platform == "instagram"
    assert profile.handle == "cookwithsam"
    assert profile.platform_user_id == "1234567890"
    assert profile.display_name == "Sam Rivera"
    assert profile.bio == "Weeknight cooking 🍳 weekend baking 🥖\nRecipes below 👇"
    assert profile.avatar_url is not None and "s1080x1080" in profile.avatar_url
    assert profile.follower_count == 45200
    assert profile.follower_count_approximate is False
    assert profile.url == "https://www.instagram.com/cookwithsam/"


def test_instagram_private_profile() -> None:
    structure = load("instagram/profile.json")
    structure["node"]["is_private"] = True
    # There, only not public: never read as gone (a catalog profile stays active).
    with pytest.raises(ProfilePrivate):
        igm.map_instagram_profile(structure, "cookwithsam")


def test_instagram_reel() -> None:
    post = igm.map_instagram_post(load("instagram/post_reel.json"))
    assert post is not None
    assert post.platform == "instagram"
    assert post.platform_post_id == "C9xReelAbC1"
    assert post.url == "https://www.instagram.com/reel/C9xReelAbC1/"
    assert post.content_type == "reel"
    assert post.caption == "15-minute garlic noodles 🍜 #recipe #noodles"
    assert post.published_at == at("2026-11-02T17:04:00Z")
    assert post.duration_seconds == 27.4
    assert (post.views, post.likes, post.comments, post.shares) == (412000, 18300, 402, None)
    assert post.thumbnail_url is not None and "synthetic-reel-cover_n.jpg" in post.thumbnail_url
    assert post.approximations == {"shares": "hidden"}  # Instagram publishes none
    assert post.extra["media_id"] == "3456789012345678901"
    assert post.extra["video_url"].split("?")[0].endswith("synthetic-reel-720.mp4")
    assert post.extra["pinned"] is False


def test_instagram_carousel() -> None:
    post = igm.map_instagram_post(load("instagram/post_carousel.json"))
    assert post is not None
    assert post.content_type == "carousel"
    assert post.url == "https://www.instagram.com/p/C8yCarouXyZ/"
    assert post.published_at == at("2026-10-30T20:15:00Z")
    assert post.duration_seconds is None
    assert (post.views, post.likes, post.comments) == (None, 5200, 133)
    assert post.approximations == {"views": "hidden", "shares": "hidden"}
    slides = post.extra["slides"]
    assert [s["is_video"] for s in slides] == [False, True, False]
    assert slides[1]["video_url"].split("?")[0].endswith("synthetic-carousel-2.mp4")
    assert len(post.extra["images"]) == 2
    assert all(is_platform_url("instagram", s["url"]) for s in slides)


def test_instagram_image() -> None:
    post = igm.map_instagram_post(load("instagram/post_image.json"))
    assert post is not None
    assert post.content_type == "image"
    assert post.url == "https://www.instagram.com/p/C7zImageQwE/"
    assert post.caption == "Sunday bread."
    assert (post.views, post.likes, post.comments) == (None, 2400, 57)
    assert post.approximations == {"views": "hidden", "shares": "hidden"}
    assert post.extra["pinned"] is True
    assert post.extra["images"] == [post.thumbnail_url]


def test_instagram_hidden_like_counts() -> None:
    structure = load("instagram/post_reel.json")
    structure["node"]["like_and_view_counts_disabled"] = True
    structure["node"]["comments_disabled"] = True
    post = igm.map_instagram_post(structure)
    assert post is not None
    assert (post.views, post.likes, post.comments) == (None, None, None)
    assert post.approximations == {
        "views": "hidden", "likes": "hidden", "comments": "hidden", "shares": "hidden"
    }


def test_instagram_logged_in_node_shape() -> None:
    """Post.from_iphone_struct's node: `date`, an int `comments`, product type inside."""
    node = {
        "shortcode": "C9xReelAbC1",
        "id": "3456789012345678901",
        "__typename": "GraphVideo",
        "is_video": True,
        "date": 1793639040,
        "caption": "15-minute garlic noodles",
        "edge_media_preview_like": {"count": 18300},
        "comments": 402,
        "display_url": "https://scontent-iad3-1.cdninstagram.com/v/t51.2885-15/x_n.jpg",
        "video_duration": 27.4,
        "video_view_count": 400000,
        "iphone_struct": {"product_type": "clips"},
    }
    post = igm.map_instagram_post(node)
    assert post is not None
    assert post.content_type == "reel"
    assert (post.views, post.likes, post.comments) == (400000, 18300, 402)
    assert post.caption == "15-minute garlic noodles"
    assert igm.instagram_content_type({"__typename": "XDTGraphSidecar"}) == "carousel"
    assert igm.instagram_content_type({"__typename": "GraphImage"}) == "image"


def test_instagram_crawl_listing() -> None:
    posts = [load(f"instagram/post_{k}.json") for k in ("reel", "carousel", "image")]
    crawl = igm.map_instagram_crawl(
        load("instagram/profile.json"), posts, handle="cookwithsam", now=NOW
    )
    assert [p.content_type for p in crawl.posts] == ["reel", "carousel", "image"]
    assert crawl.listing_complete is True
    pinned_first = [posts[2], posts[0], posts[1]]
    crawl = igm.map_instagram_crawl(
        load("instagram/profile.json"), pinned_first, handle="cookwithsam", now=NOW
    )
    assert crawl.listing_complete is False
    crawl = igm.map_instagram_crawl(
        load("instagram/profile.json"), posts, handle="cookwithsam", now=NOW, skipped=1
    )
    assert crawl.listing_complete is False  # a post Instagram would not describe: a gap


def test_instaloader_errors() -> None:
    from instaloader import exceptions as ie

    def check(exc: BaseException, subject: Any, expected: type) -> None:
        assert type(igm.map_instaloader_error(exc, subject=subject)) is expected, exc

    check(ie.ProfileNotExistsException("Profile ghost does not exist."), "profile", ProfileNotFound)
    check(
        ie.PrivateProfileNotFollowedException("Profile x is private but not followed."),
        "profile",
        ProfileNotFound,
    )
    check(
        ie.LoginRequiredException("Login required to access the posts of private profile x."),
        "profile",
        ProfileNotFound,
    )
    check(
        ie.LoginRequiredException("Redirected to login page. Use --login or --load-cookies."),
        "profile",
        Blocked,
    )
    check(ie.QueryReturnedNotFoundException("404 Not Found"), "post", PostNotFound)
    check(ie.TooManyRequestsException("429 Too Many Requests"), "profile", RateLimited)
    check(
        ie.ConnectionException("JSON Query to api/graphql: 429 Too Many Requests [retrying]"),
        "profile",
        RateLimited,
    )
    check(
        ie.ConnectionException(
            'JSON Query to api/graphql: 400 Bad Request - "Please wait a few minutes before you '
            'try again."'
        ),
        "profile",
        RateLimited,
    )
    check(
        ie.ConnectionException("Page request to https://www.instagram.com/x/: Read timed out."),
        "profile",
        TransientError,
    )
    check(
        ie.QueryReturnedBadRequestException("400 Bad Request - checkpoint_required"),
        "profile",
        Blocked,
    )
    check(
        ie.AbortDownloadException("Redirected to login page. You've been logged out"),
        "profile",
        Blocked,
    )
    check(ie.QueryReturnedForbiddenException("403 Forbidden"), "post", Blocked)
    check(ie.BadResponseException("Fetching Post metadata failed."), "post", PostNotFound)
    check(igm.InstagramSlowDown(600), "profile", RateLimited)
    slow_down = igm.map_instaloader_error(igm.InstagramSlowDown(600), subject="profile")
    assert slow_down.retry_after == 600
    check(OSError("Network is unreachable"), "profile", TransientError)


def test_instagram_ytdlp_errors() -> None:
    msg = "Requested content is not available, rate-limit reached or login required"
    assert type(igm.map_instagram_ytdlp_error(FailureInfo(msg), subject="post")) is RateLimited
    no_video = FailureInfo("[Instagram] C7zImageQwE: There is no video in this post")
    assert type(igm.map_instagram_ytdlp_error(no_video, subject="post")) is UnsupportedMedia
    restricted = FailureInfo(
        "Restricted Video: You must be 18 years old or over to see this video. Use --cookies"
    )
    assert type(igm.map_instagram_ytdlp_error(restricted, subject="post")) is Blocked


def test_instagram_session_files(tmp_path: Path) -> None:
    as_json = tmp_path / "ig.json"
    as_json.write_text(json.dumps({"username": "researcher", "sessionid": "s", "csrftoken": "c"}))
    assert ig.read_session_file(as_json) == ("researcher", {"sessionid": "s", "csrftoken": "c"})
    # instaloader's own format: a pickled dict of cookies, named session-<user>.
    pickled = tmp_path / "session-researcher"
    pickled.write_bytes(pickle.dumps({"sessionid": "s", "ds_user_id": "42"}))
    assert ig.read_session_file(pickled) == (
        "researcher",
        {"sessionid": "s", "ds_user_id": "42", "csrftoken": ""},
    )
    evil = tmp_path / "evil"
    evil.write_bytes(pickle.dumps(Path("/")))  # anything with a global is refused
    with pytest.raises(Blocked):
        ig.read_session_file(evil)
    with pytest.raises(Blocked):
        ig.read_session_file(tmp_path / "missing")
