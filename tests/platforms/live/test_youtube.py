"""YouTube's fetcher end to end, offline: the Data API on an httpx MockTransport, yt-dlp faked."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from sors.config import Settings
from sors.platforms.base import (
    PostRef,
    ProfileNotFound,
    RateLimited,
)
from sors.platforms.live import LiveAdapter
from sors.platforms.live import youtube as yt
from tests.platforms.live.support import (
    NOW,
    FakeYtDlp,
    failure,
    load,
    png_bytes,
    quiet_pacers,
)


def youtube_api_transport(seen: list[httpx.Request], *, quota: bool = False) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        assert request.url.host == "www.googleapis.com"
        assert request.headers["x-goog-api-key"] == "test-key"
        assert "key=" not in str(request.url)  # the key never travels in the URL
        resource, params = request.url.path.rsplit("/", 1)[-1], request.url.params
        if quota:
            return httpx.Response(403, json=load("youtube/api_error_quota.json"))
        if resource == "channels":
            found = params["forHandle"] == "@cookwithsam"
            name = "api_channels_forhandle" if found else "api_channels_forhandle_empty"
            assert params["part"] == "snippet,statistics,contentDetails"
            return httpx.Response(200, json=load(f"youtube/{name}.json"))
        if resource == "playlistItems":
            name = {
                "UUx1b2c3d4e5f6g7h8i9j0kA": "api_playlistitems_uploads",
                "UUSHx1b2c3d4e5f6g7h8i9j0kA": "api_playlistitems_shorts",
            }[params["playlistId"]]
            return httpx.Response(200, json=load(f"youtube/{name}.json"))
        if resource == "videos":
            assert params["part"] == "snippet,statistics,contentDetails,liveStreamingDetails"
            assert params["id"].split(",") == [
                "Mn7Op9Qr1St",
                "Kq9Lm2Np4Rs",
                "aB3dE5fG7hJ",
                "Cd1Ef3Gh5Ij",
                "Tv6Wx8Yz0Ab",
            ]
            return httpx.Response(200, json=load("youtube/api_videos.json"))
        return httpx.Response(404, json={"error": {"code": 404, "message": "no"}})

    return httpx.MockTransport(handler)


async def test_youtube_data_api_crawl() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=youtube_api_transport(seen)) as http:
        adapter = LiveAdapter(
            Settings(youtube_api_key="test-key", http_proxy=None),
            http_client=http,
            pacers=quiet_pacers(),
        )
        crawl = await adapter.fetch_profile("youtube", "@CookWithSam", now=NOW)
    assert [r.url.path.rsplit("/", 1)[-1] for r in seen] == [
        "channels",
        "playlistItems",
        "playlistItems",
        "videos",
    ]  # 4 quota units
    assert crawl.profile.handle == "cookwithsam"
    assert crawl.profile.follower_count == 81000 and crawl.profile.follower_count_approximate
    assert [(p.platform_post_id, p.content_type) for p in crawl.posts] == [
        ("Kq9Lm2Np4Rs", "short"),
        ("aB3dE5fG7hJ", "video"),
        ("Cd1Ef3Gh5Ij", "video"),
        ("Tv6Wx8Yz0Ab", "live"),
    ]
    assert crawl.listing_complete is True
    assert crawl.fetched_at == NOW


async def test_youtube_data_api_failures() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=youtube_api_transport(seen)) as http:
        adapter = LiveAdapter(
            Settings(youtube_api_key="test-key"), http_client=http, pacers=quiet_pacers()
        )
        with pytest.raises(ProfileNotFound):
            await adapter.fetch_profile("youtube", "ghostchannel", now=NOW)
    async with httpx.AsyncClient(transport=youtube_api_transport(seen, quota=True)) as http:
        adapter = LiveAdapter(
            Settings(youtube_api_key="test-key"), http_client=http, pacers=quiet_pacers()
        )
        with pytest.raises(RateLimited) as caught:
            await adapter.fetch_profile("youtube", "cookwithsam", now=NOW)
    assert caught.value.retry_after is not None and caught.value.retry_after >= 20 * 3600


async def test_youtube_ytdlp_crawl() -> None:
    base = "https://www.youtube.com/@cookwithsam"
    fake = FakeYtDlp(
        {
            f"{base}/videos": load("youtube/ytdlp_tab_videos.json"),
            f"{base}/shorts": load("youtube/ytdlp_tab_shorts.json"),
            f"{base}/streams": load("youtube/ytdlp_tab_streams.json"),
            "https://www.youtube.com/watch?v=aB3dE5fG7hJ": load("youtube/ytdlp_video.json"),
            "https://www.youtube.com/watch?v=Kq9Lm2Np4Rs": load("youtube/ytdlp_short.json"),
            "https://www.youtube.com/watch?v=Tv6Wx8Yz0Ab": load("youtube/ytdlp_live.json"),
            "https://www.youtube.com/watch?v=Cd1Ef3Gh5Ij": failure(
                "[youtube] Cd1Ef3Gh5Ij: Video unavailable"
            ),
        }
    )
    async with httpx.AsyncClient() as http:
        fetcher = yt.YouTubeFetcher(api_key=None, http=http, ytdlp=fake, pacers=quiet_pacers())
        crawl = await fetcher.fetch_profile("cookwithsam", now=NOW)
    assert crawl.profile.display_name == "Cook with Sam"
    assert [(p.platform_post_id, p.content_type, p.extra["source"]) for p in crawl.posts] == [
        ("Kq9Lm2Np4Rs", "short", "ytdlp"),
        ("aB3dE5fG7hJ", "video", "ytdlp"),
        ("Cd1Ef3Gh5Ij", "video", "ytdlp_flat"),  # details refused: the listing's data
        ("Tv6Wx8Yz0Ab", "live", "ytdlp"),
    ]
    # The upcoming stream was never asked about.
    assert ("extract", "https://www.youtube.com/watch?v=Mn7Op9Qr1St") not in fake.calls
    assert crawl.listing_complete is True  # every tab shorter than its limit


async def test_youtube_ytdlp_bot_check_stops_detail_requests() -> None:
    base = "https://www.youtube.com/@cookwithsam"
    bot = failure("Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies")
    fake = FakeYtDlp(
        {
            f"{base}/videos": load("youtube/ytdlp_tab_videos.json"),
            f"{base}/shorts": failure("This channel does not have a shorts tab"),
            f"{base}/streams": failure("This channel does not have a streams tab"),
            "https://www.youtube.com/watch?v=aB3dE5fG7hJ": bot,
        }
    )
    async with httpx.AsyncClient() as http:
        fetcher = yt.YouTubeFetcher(api_key=None, http=http, ytdlp=fake, pacers=quiet_pacers())
        crawl = await fetcher.fetch_profile("cookwithsam", now=NOW)
    assert [p.extra["source"] for p in crawl.posts] == ["ytdlp_flat", "ytdlp_flat"]
    assert ("extract", "https://www.youtube.com/watch?v=Cd1Ef3Gh5Ij") not in fake.calls


async def test_youtube_ytdlp_missing_channel() -> None:
    missing = failure(
        "The channel/playlist does not exist and the URL redirected to youtube.com home page"
    )
    fake = FakeYtDlp({"https://www.youtube.com/@ghost/videos": missing})
    async with httpx.AsyncClient() as http:
        fetcher = yt.YouTubeFetcher(api_key=None, http=http, ytdlp=fake, pacers=quiet_pacers())
        with pytest.raises(ProfileNotFound):
            await fetcher.fetch_profile("ghost", now=NOW)


async def test_youtube_media_thumbnail_when_audio_refused(tmp_path: Path) -> None:
    fetched: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        fetched.append(str(request.url))
        if request.url.path.endswith("maxresdefault.jpg"):
            return httpx.Response(404)
        return httpx.Response(200, content=png_bytes(8, 6), headers={"content-type": "image/png"})

    bot = failure("Sign in to confirm you’re not a bot. Use --cookies")
    fake = FakeYtDlp({("download", "https://www.youtube.com/watch?v=aB3dE5fG7hJ"): bot})
    ref = PostRef(platform="youtube", platform_post_id="aB3dE5fG7hJ", url="x", content_type="video")
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        fetcher = yt.YouTubeFetcher(api_key=None, http=http, ytdlp=fake, pacers=quiet_pacers())
        files = await fetcher.fetch_media(ref, tmp_path, max_bytes=10_000)
        assert [(f.kind, f.content_type, f.width, f.height) for f in files] == [
            ("thumbnail", "image/png", 8, 6)
        ]
        assert files[0].path.exists()
        assert fetched[-1] == "https://i.ytimg.com/vi/aB3dE5fG7hJ/hqdefault.jpg"
        slow = failure("HTTP Error 429: Too Many Requests", 429)
        fake.answers[("download", "https://www.youtube.com/watch?v=aB3dE5fG7hJ")] = slow
        with pytest.raises(RateLimited):
            await fetcher.fetch_media(ref, tmp_path, max_bytes=10_000)
