"""YouTube through yt-dlp: channel tabs and videos → snapshots, yt-dlp's failures → typed
failures."""

from __future__ import annotations

from typing import Any

import pytest

from sors.platforms.base import (
    Blocked,
    PostNotFound,
    ProfileNotFound,
    RateLimited,
    TransientError,
)
from sors.platforms.live.common import (
    FailureInfo,
)
from sors.platforms.live.web import youtube_map as ytdm
from tests.platforms.live.support import (
    at,
    load,
)

# ---- YouTube: yt-dlp -------------------------------------------------------------------


def test_ytdlp_channel_tab_to_profile() -> None:
    profile = ytdm.map_ytdlp_channel(load("youtube/ytdlp_tab_videos.json"), "cookwithsam")
    assert profile.platform_user_id == "UCx1b2c3d4e5f6g7h8i9j0kA"
    assert profile.display_name == "Cook with Sam"
    assert profile.bio == "Weeknight cooking and weekend baking. New videos every Tuesday."
    assert profile.avatar_url == "https://yt3.googleusercontent.com/synthetic-avatar-cookwithsam=s0"
    assert profile.follower_count == 81000
    assert profile.follower_count_approximate is True
    assert profile.url == "https://www.youtube.com/@cookwithsam"


def test_ytdlp_full_video() -> None:
    post = ytdm.map_ytdlp_video(load("youtube/ytdlp_video.json"), tab="videos")
    assert post is not None
    assert post.platform_post_id == "aB3dE5fG7hJ"
    assert post.url == "https://www.youtube.com/watch?v=aB3dE5fG7hJ"
    assert post.content_type == "video"
    assert post.caption == "Sourdough in 24 hours: the full schedule"
    assert post.published_at == at("2026-11-02T17:04:00Z")
    assert post.duration_seconds == 872.0
    assert (post.views, post.likes, post.comments, post.shares) == (52310, 2104, 188, None)
    assert post.thumbnail_url == "https://i.ytimg.com/vi/aB3dE5fG7hJ/maxresdefault.jpg"
    assert post.approximations == {}
    assert post.extra["source"] == "ytdlp"
    assert post.extra["tags"] == ["sourdough", "baking"]


def test_ytdlp_full_short() -> None:
    info = load("youtube/ytdlp_short.json")
    post = ytdm.map_ytdlp_video(info, tab="shorts")
    assert post is not None
    assert post.content_type == "short"
    assert post.url == "https://www.youtube.com/shorts/Kq9Lm2Np4Rs"
    assert post.published_at == at("2026-11-05T09:30:00Z")
    assert post.duration_seconds == 42.0
    assert (post.views, post.likes, post.comments) == (1830000, 91000, 1200)
    # yt-dlp reads a Short's engaged views, not the plays its player shows: flagged.
    assert post.approximations["views"] == "engaged_views"
    # Without the tab and media_type, the vertical format and length still say Short.
    bare = {k: v for k, v in info.items() if k != "media_type"}
    assert ytdm.ytdlp_content_type(bare) == "short"
    assert ytdm.ytdlp_content_type({**bare, "width": 1920, "height": 1080}) == "video"


def test_ytdlp_full_live_with_hidden_likes() -> None:
    post = ytdm.map_ytdlp_video(load("youtube/ytdlp_live.json"), tab="streams")
    assert post is not None
    assert post.content_type == "live"
    assert post.duration_seconds == 3723.0
    assert post.likes is None
    assert post.approximations == {"likes": "hidden"}
    assert ytdm.ytdlp_content_type(load("youtube/ytdlp_live.json")) == "live"


def test_ytdlp_flat_entries() -> None:
    entries = load("youtube/ytdlp_tab_videos.json")["entries"]
    post = ytdm.map_ytdlp_video(entries[1], tab="videos")
    assert post is not None
    assert post.platform_post_id == "Cd1Ef3Gh5Ij"
    assert post.content_type == "video"
    assert post.published_at == at("2026-10-30T00:00:00Z")
    assert (post.views, post.likes, post.comments) == (8400, None, None)
    assert post.approximations == {
        "published_at": "approximate",
        "views": "rounded",
        "likes": "unavailable",
        "comments": "unavailable",
    }
    assert post.extra["source"] == "ytdlp_flat"
    # A Shorts-tab entry carries no date: it cannot be placed in time.
    short_entry = load("youtube/ytdlp_tab_shorts.json")["entries"][0]
    assert ytdm.map_ytdlp_video(short_entry, tab="shorts") is None
    assert ytdm.ytdlp_content_type(short_entry) == "short"


@pytest.mark.parametrize(
    ("message", "status", "subject", "expected"),
    [
        ("[youtube] aB3dE5fG7hJ: Video unavailable", None, "post", PostNotFound),
        (
            "Private video. Sign in if you've been granted access to this video",
            None,
            "post",
            PostNotFound,
        ),
        ("This video has been removed by the uploader", None, "post", PostNotFound),
        (
            "Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies",
            None,
            "post",
            Blocked,
        ),
        (
            "Sign in to confirm your age. This video may be inappropriate for some users.",
            None,
            "post",
            Blocked,
        ),
        (
            "Video unavailable. This content isn't available, try again later.",
            None,
            "post",
            RateLimited,
        ),
        (
            "Unable to download API page: HTTP Error 429: Too Many Requests",
            429,
            "profile",
            RateLimited,
        ),
        (
            "[youtube:tab] @nobody: This channel does not have a shorts tab",
            None,
            "profile",
            ProfileNotFound,
        ),
        (
            "The channel/playlist does not exist and the URL redirected to youtube.com home page",
            None,
            "profile",
            ProfileNotFound,
        ),
        ("Unable to download webpage: HTTP Error 404: Not Found", 404, "profile", ProfileNotFound),
        (
            "Unable to download webpage: HTTP Error 503: Service Unavailable",
            503,
            "profile",
            TransientError,
        ),
        ("Unable to download webpage: <urlopen error timed out>", None, "profile", TransientError),
        (
            "Unable to extract yt initial data; please report this issue",
            None,
            "profile",
            TransientError,
        ),
    ],
)
def test_youtube_ytdlp_errors(
    message: str, status: int | None, subject: Any, expected: type
) -> None:
    err = ytdm.map_ytdlp_error(FailureInfo(message=message, status=status), subject=subject)
    assert type(err) is expected
