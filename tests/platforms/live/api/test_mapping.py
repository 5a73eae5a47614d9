"""YouTube's Data API v3: its answers → snapshots, its refusals → typed failures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from sors.platforms.base import (
    FailureKind,
    PlatformError,
    PostNotFound,
    ProfileNotFound,
    RateLimited,
    SourceUnavailable,
    TransientError,
)
from sors.platforms.live.api import mapping as ytm
from sors.platforms.live.common import (
    listing_is_complete,
)
from tests.platforms.live.support import (
    NOW,
    at,
    load,
)

# ---- YouTube: Data API -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("PT14M32S", 872.0),
        ("PT42S", 42.0),
        ("PT1H2M3S", 3723.0),
        ("PT1H", 3600.0),
        ("P1DT2H", 93600.0),
        ("P1W", 604800.0),
        ("PT0.5S", 0.5),
        ("P0D", 0.0),
        ("PT0S", 0.0),
        ("", None),
        ("PT", None),
        ("P", None),
        ("1:00", None),
        ("PT1M3", None),
        (None, None),
    ],
)
def test_iso8601_durations(value: Any, seconds: float | None) -> None:
    assert ytm.parse_iso8601_duration(value) == seconds


def test_api_channel_to_profile() -> None:
    item = ytm.api_channel_item(load("youtube/api_channels_forhandle.json"))
    profile = ytm.map_api_channel(item, "cookwithsam")
    assert profile.platform == "youtube"
    assert profile.handle == "cookwithsam"
    assert profile.platform_user_id == "UCx1b2c3d4e5f6g7h8i9j0kA"
    assert profile.display_name == "Cook with Sam"
    assert profile.bio == "Weeknight cooking and weekend baking. New videos every Tuesday."
    assert profile.avatar_url == (
        "https://yt3.ggpht.com/synthetic-avatar-cookwithsam=s800-c-k-c0x00ffffff-no-rj"
    )
    assert profile.follower_count == 81000
    assert profile.follower_count_approximate is True  # YouTube rounds subscriber counts
    assert profile.url == "https://www.youtube.com/@cookwithsam"
    assert ytm.uploads_playlist_id(item) == "UUx1b2c3d4e5f6g7h8i9j0kA"
    assert ytm.shorts_playlist_id(item["id"]) == "UUSHx1b2c3d4e5f6g7h8i9j0kA"


def test_api_channel_hidden_subscribers() -> None:
    item = copy.deepcopy(ytm.api_channel_item(load("youtube/api_channels_forhandle.json")))
    item["statistics"]["hiddenSubscriberCount"] = True
    profile = ytm.map_api_channel(item, "cookwithsam")
    assert profile.follower_count is None
    assert profile.follower_count_approximate is False


def test_api_channel_not_found() -> None:
    with pytest.raises(ProfileNotFound):
        ytm.api_channel_item(load("youtube/api_channels_forhandle_empty.json"))


def _api_item(vid: str) -> dict[str, Any]:
    return next(i for i in load("youtube/api_videos.json")["items"] if i["id"] == vid)


def test_api_video_fields() -> None:
    post = ytm.map_api_video(_api_item("aB3dE5fG7hJ"), is_short=False)
    assert post.platform == "youtube"
    assert post.platform_post_id == "aB3dE5fG7hJ"
    assert post.url == "https://www.youtube.com/watch?v=aB3dE5fG7hJ"
    assert post.content_type == "video"
    assert post.caption == "Sourdough in 24 hours: the full schedule"
    assert post.published_at == at("2026-11-02T17:04:00Z")
    assert post.published_at.tzinfo is not None
    assert post.duration_seconds == 872.0
    assert (post.views, post.likes, post.comments, post.shares) == (52310, 2104, 188, None)
    assert post.thumbnail_url == "https://i.ytimg.com/vi/aB3dE5fG7hJ/maxresdefault.jpg"
    assert post.approximations == {}
    assert post.extra["description"].startswith("Everything from starter")
    assert post.extra["tags"] == ["sourdough", "baking"]
    assert post.extra["channel_id"] == "UCx1b2c3d4e5f6g7h8i9j0kA"
    assert post.extra["content_type_source"] == "api"


def test_api_short_from_shorts_playlist() -> None:
    shorts = set(ytm.playlist_video_ids(load("youtube/api_playlistitems_shorts.json")))
    assert shorts == {"Kq9Lm2Np4Rs"}
    post = ytm.map_api_video(_api_item("Kq9Lm2Np4Rs"), is_short="Kq9Lm2Np4Rs" in shorts)
    assert post.content_type == "short"
    assert post.url == "https://www.youtube.com/shorts/Kq9Lm2Np4Rs"
    assert post.duration_seconds == 42.0
    assert (post.views, post.likes, post.comments) == (1830000, 91000, 1200)
    # No maxres thumbnail for this one: the best available is used.
    assert post.thumbnail_url == "https://i.ytimg.com/vi/Kq9Lm2Np4Rs/sddefault.jpg"


def test_api_hidden_likes_and_disabled_comments() -> None:
    post = ytm.map_api_video(_api_item("Cd1Ef3Gh5Ij"), is_short=False)
    # 50 s but not in the Shorts playlist: a regular video.
    assert post.content_type == "video"
    assert post.views == 8400
    assert post.likes is None
    assert post.comments is None
    assert post.approximations == {"likes": "hidden", "comments": "hidden"}


def test_api_short_heuristic_without_playlist() -> None:
    post = ytm.map_api_video(_api_item("Cd1Ef3Gh5Ij"), is_short=None)
    assert post.content_type == "short"  # ≤ 60 s and nothing better to go by
    assert post.extra["content_type_source"] == "heuristic"
    long = ytm.map_api_video(_api_item("aB3dE5fG7hJ"), is_short=None)
    assert long.content_type == "video"
    assert ytm.guess_is_short(150, "Quick one #Shorts") is True
    assert ytm.guess_is_short(150, "Quick one") is False
    assert ytm.guess_is_short(None) is False


def test_api_live() -> None:
    post = ytm.map_api_video(_api_item("Tv6Wx8Yz0Ab"), is_short=False)
    assert post.content_type == "live"
    assert post.url == "https://www.youtube.com/watch?v=Tv6Wx8Yz0Ab"
    assert post.duration_seconds == 3723.0
    assert post.extra["live"]["actualStartTime"] == "2026-10-25T12:01:10Z"
    assert post.extra["live"]["actualEndTime"] == "2026-10-25T13:03:13Z"


def test_api_listing_order_and_upcoming() -> None:
    order = ytm.playlist_video_ids(load("youtube/api_playlistitems_uploads.json"))
    posts = ytm.map_api_videos([load("youtube/api_videos.json")], order, shorts_ids={"Kq9Lm2Np4Rs"})
    # The upcoming premiere is not a post yet; the rest keep the uploads order.
    assert [p.platform_post_id for p in posts] == [
        "Kq9Lm2Np4Rs",
        "aB3dE5fG7hJ",
        "Cd1Ef3Gh5Ij",
        "Tv6Wx8Yz0Ab",
    ]
    assert [p.content_type for p in posts] == ["short", "video", "video", "live"]
    assert listing_is_complete(posts)


def test_api_listing_shorts_playlist_cut() -> None:
    # The Shorts page we read only reaches back to 2026-11-01: older videos get the heuristic.
    posts = ytm.map_api_videos(
        [load("youtube/api_videos.json")],
        ["Kq9Lm2Np4Rs", "Cd1Ef3Gh5Ij"],
        shorts_ids={"Kq9Lm2Np4Rs"},
        shorts_known_since=at("2026-11-01T00:00:00Z"),
    )
    assert [p.content_type for p in posts] == ["short", "short"]
    assert posts[1].extra["content_type_source"] == "heuristic"


def test_api_errors() -> None:
    quota = ytm.map_api_error(403, load("youtube/api_error_quota.json"), subject="profile", now=NOW)
    assert isinstance(quota, RateLimited)
    # 12:00 UTC is 04:00 in Los Angeles (PST): 20 hours to the quota reset.
    assert quota.retry_after == 20 * 3600
    bad_key = ytm.map_api_error(
        400, load("youtube/api_error_key_invalid.json"), subject="profile", now=NOW
    )
    # The key itself refused: an operator must act (no retry, the profile stays active).
    assert isinstance(bad_key, SourceUnavailable) and bad_key.kind == FailureKind.BAD_TOKEN
    assert "API key not valid" in str(bad_key) and "SORS_YOUTUBE_API_KEY" in str(bad_key)
    gone = ytm.map_api_error(
        404, load("youtube/api_error_playlist_not_found.json"), subject="profile", now=NOW
    )
    assert isinstance(gone, ProfileNotFound)
    assert isinstance(ytm.map_api_error(404, None, subject="post", now=NOW), PostNotFound)
    slow = ytm.map_api_error(429, None, subject="profile", now=NOW, retry_after=30)
    assert isinstance(slow, RateLimited) and slow.retry_after == 30
    assert isinstance(ytm.map_api_error(503, "oops", subject="profile", now=NOW), TransientError)
    other = ytm.map_api_error(400, {"error": {"message": "Invalid"}}, subject="profile", now=NOW)
    assert type(other) is PlatformError and not other.retryable


def test_quota_reset_across_dst() -> None:
    # 2026-11-01 is the switch back to PST; just before midnight PDT on 2026-10-31.
    assert ytm.seconds_until_quota_reset(at("2026-11-01T06:30:00Z")) == 1800
    assert ytm.seconds_until_quota_reset(at("2026-11-10T07:59:30Z")) == 60  # floor


# ---- recorded real error answers (tests/fixtures/sources/README.md) -----------------------

_RECORDED = Path(__file__).parents[3] / "fixtures" / "sources" / "youtube_api" / "errors"


@pytest.mark.parametrize(
    ("name", "status", "expected", "kind"),
    [
        # 2019: a bad key, before the `status` field existed.
        ("keyInvalid_400_2019.json", 400, SourceUnavailable, FailureKind.BAD_TOKEN),
        # 2022: the key may not call this API (ErrorInfo API_KEY_SERVICE_BLOCKED).
        ("api_key_service_blocked_403_2022.json", 403, SourceUnavailable, FailureKind.BAD_TOKEN),
        # 2022: a 403 PERMISSION_DENIED whose reason is YouTube's back end failing.
        ("permission_denied_403_2022.json", 403, TransientError, FailureKind.TRANSIENT),
        # 2021: the day's quota is spent: wait until it resets.
        ("quotaExceeded_403_2021.json", 403, RateLimited, FailureKind.RATE_LIMITED),
    ],
)
def test_recorded_api_errors_are_classified_by_their_reason(
    name: str, status: int, expected: type, kind: FailureKind
) -> None:
    body = json.loads((_RECORDED / name).read_text())
    err = ytm.map_api_error(status, body, subject="profile", now=NOW)
    assert type(err) is expected and err.kind is kind
    # None of them says the channel is gone: none would deactivate a creator.
    assert not isinstance(err, ProfileNotFound)
