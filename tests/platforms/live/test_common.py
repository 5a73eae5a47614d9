"""The rules every live source shares: failures by kind, HTTP statuses, Retry-After, the
platforms' hosts, whether a listing is complete."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from sors.platforms.base import (
    Blocked,
    PlatformError,
    PostNotFound,
    PostSnapshot,
    ProfileNotFound,
    RateLimited,
    TransientError,
)
from sors.platforms.live.common import (
    FailureInfo,
    classify_failure,
    from_http_status,
    listing_is_complete,
    merged_listing_is_complete,
    parse_retry_after,
)
from sors.platforms.live.net import is_platform_url
from tests.platforms.live.support import (
    NOW,
)

# ---- shared rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (FailureInfo("x", status=429, retry_after=12), RateLimited),
        (FailureInfo("x", status=404), ProfileNotFound),
        (FailureInfo("x", status=410), ProfileNotFound),
        (FailureInfo("x", status=403), Blocked),
        (FailureInfo("x", status=500), TransientError),
        (FailureInfo("connection reset", network=True), TransientError),
        (FailureInfo("Please complete the captcha"), Blocked),
        (FailureInfo("something new and strange"), TransientError),
    ],
)
def test_classify_failure(info: FailureInfo, expected: type) -> None:
    err = classify_failure(info, subject="profile")
    assert type(err) is expected
    if expected is RateLimited:
        assert err.retry_after == 12


def test_http_status_mapping() -> None:
    assert type(from_http_status(429, subject="post", retry_after=5)) is RateLimited
    assert type(from_http_status(404, subject="post")) is PostNotFound
    assert type(from_http_status(403, subject="post")) is Blocked
    assert type(from_http_status(502, subject="post")) is TransientError
    assert type(from_http_status(408, subject="post")) is TransientError
    assert type(from_http_status(400, subject="post")) is PlatformError


def test_retry_after_header() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Tue, 10 Nov 2026 12:01:00 GMT", now=NOW) == 60.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_ytdlp_exception_chain() -> None:
    from yt_dlp.networking import Response
    from yt_dlp.networking.exceptions import HTTPError, TransportError
    from yt_dlp.utils import DownloadError, ExtractorError

    from sors.platforms.live.web.ytdlp import failure_from_exception

    response = Response(
        io.BytesIO(b""), "https://www.tiktok.com/api/x", {"Retry-After": "90"}, status=429
    )
    try:
        try:
            raise HTTPError(response)
        except HTTPError as http:
            raise ExtractorError(
                "Unable to download JSON metadata", cause=http, expected=True
            ) from http
    except ExtractorError as extractor:
        info = failure_from_exception(
            DownloadError("ERROR: " + str(extractor), (None, extractor, None))
        )
    assert info.status == 429
    assert info.retry_after == 90.0
    assert "Unable to download JSON metadata" in info.message
    assert type(classify_failure(info, subject="profile")) is RateLimited

    net_err = ExtractorError("Unable to download webpage", cause=TransportError(), expected=True)
    info = failure_from_exception(DownloadError("ERROR: x", (None, net_err, None)))
    assert info.network is True and info.status is None


@pytest.mark.parametrize(
    ("platform", "url", "ok"),
    [
        ("tiktok", "https://p16-sign-va.tiktokcdn.com/obj/x.jpeg?x-expires=1", True),
        ("tiktok", "https://v16-webapp-prime.tiktok.com/video/x", True),
        ("tiktok", "https://p16-sign.tiktokcdn-us.com/x.jpeg", True),
        ("instagram", "https://scontent-iad3-1.cdninstagram.com/v/x.jpg", True),
        ("instagram", "https://instagram.fxyz1-1.fna.fbcdn.net/v/x.jpg", True),
        ("youtube", "https://i.ytimg.com/vi/aB3dE5fG7hJ/hqdefault.jpg", True),
        ("youtube", "https://yt3.ggpht.com/x=s88", True),
        ("tiktok", "http://p16-sign-va.tiktokcdn.com/x.jpeg", False),
        ("tiktok", "https://tiktokcdn.com.evil.example/x.jpeg", False),
        ("tiktok", "https://eviltiktokcdn.com/x.jpeg", False),
        ("tiktok", "https://user:pw@p16-sign-va.tiktokcdn.com/x.jpeg", False),
        ("tiktok", "https://p16-sign-va.tiktokcdn.com:8443/x.jpeg", False),
        ("instagram", "https://p16-sign-va.tiktokcdn.com/x.jpeg", False),
        ("youtube", "https://169.254.169.254/latest/meta-data", False),
        ("youtube", "file:///etc/passwd", False),
        ("youtube", "not a url", False),
    ],
)
def test_platform_hosts(platform: str, url: str, ok: bool) -> None:
    assert is_platform_url(platform, url) is ok


def _post(day: int, pid: str = "") -> PostSnapshot:
    return PostSnapshot(
        platform="youtube",
        platform_post_id=pid or f"p{day}",
        url="https://www.youtube.com/watch?v=x",
        content_type="video",
        caption=None,
        published_at=datetime(2026, 10, day, tzinfo=UTC),
        duration_seconds=None,
        views=None,
        likes=None,
        comments=None,
        shares=None,
        thumbnail_url=None,
    )


def test_listing_completeness() -> None:
    assert listing_is_complete([]) is True
    assert listing_is_complete([_post(20), _post(10), _post(5)]) is True
    assert listing_is_complete([_post(1), _post(20), _post(10)]) is False  # old pinned first
    videos = [_post(20), _post(10)]  # cut at the limit: covers back to the 10th
    shorts = [_post(25), _post(3)]  # complete: the whole tab
    assert merged_listing_is_complete([(videos, True), (shorts, False)]) is False
    assert merged_listing_is_complete([(videos, False), (shorts, False)]) is True
    assert merged_listing_is_complete([(videos, True), ([_post(25), _post(12)], False)]) is True
    assert merged_listing_is_complete([]) is True
