"""TikTok's and Instagram's fetchers end to end, offline (yt-dlp and instaloader faked or their
network calls replaced), and the yt-dlp wrapper."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from sors.platforms.base import (
    Blocked,
    PostRef,
    ProfileNotFound,
    RateLimited,
)
from sors.platforms.live.web import instagram as ig
from sors.platforms.live.web import tiktok as tt
from sors.platforms.live.web import tiktok_map as ttm
from sors.platforms.live.web.ytdlp import YtDlpFailure
from tests.platforms.live.support import (
    NOW,
    FakeYtDlp,
    failure,
    load,
    png_bytes,
    quiet_pacers,
    tiktok_listing_entry,
    tiktok_user_detail,
)


def tiktok_profile_answer(detail: dict[str, Any] | None, result: Any) -> Any:
    def answer(ie: Any) -> Any:
        if detail is not None:
            ie._sors_user_detail = detail  # what our extractor keeps from the page
        return result

    return answer


async def test_tiktok_crawl() -> None:
    url = "https://www.tiktok.com/@fit.anna"
    fake = FakeYtDlp(
        {url: tiktok_profile_answer(tiktok_user_detail(), load("tiktok/ytdlp_user_listing.json"))}
    )
    async with httpx.AsyncClient() as http:
        fetcher = tt.TikTokFetcher(ytdlp=fake, http=http, pacers=quiet_pacers())
        crawl = await fetcher.fetch_profile("fit.anna", now=NOW)
    assert crawl.profile.follower_count == 120000
    assert [p.content_type for p in crawl.posts] == ["video", "slideshow", "video", "video"]


async def test_tiktok_crawl_no_videos_and_missing() -> None:
    url = "https://www.tiktok.com/@fit.anna"
    empty = failure("This account does not have any videos posted")
    fake = FakeYtDlp({url: tiktok_profile_answer(tiktok_user_detail(), empty)})
    async with httpx.AsyncClient() as http:
        fetcher = tt.TikTokFetcher(ytdlp=fake, http=http, pacers=quiet_pacers())
        crawl = await fetcher.fetch_profile("fit.anna", now=NOW)
        assert crawl.posts == [] and crawl.profile.follower_count == 120000

        gone = tiktok_user_detail()
        gone.update(statusCode=10221, userInfo={})
        no_sec_uid = failure("Unable to extract secondary user ID")
        fake.answers[url] = tiktok_profile_answer(gone, no_sec_uid)
        with pytest.raises(ProfileNotFound):
            await fetcher.fetch_profile("fit.anna", now=NOW)

        fake.answers[url] = tiktok_profile_answer(None, no_sec_uid)  # a challenge page
        with pytest.raises(Blocked):
            await fetcher.fetch_profile("fit.anna", now=NOW)


async def test_tiktok_slideshow_media_refreshes_expired_links(tmp_path: Path) -> None:
    requested: list[str] = []
    listed = ttm.map_tiktok_post(tiktok_listing_entry("7304440005556667778"), handle="fit.anna")
    assert listed is not None
    stale = ["https://evil.example/steal.jpeg", *listed.extra["images"][1:]]

    def handler(request: httpx.Request) -> httpx.Response:
        requested.append(request.url.host)
        if "x-expires" in str(request.url) and request.url.host == "p16-sign-va.tiktokcdn.com":
            return httpx.Response(200, content=png_bytes(), headers={"content-type": "image/png"})
        return httpx.Response(403)

    fresh = load("tiktok/ytdlp_slideshow.json")
    fake = FakeYtDlp({"https://www.tiktok.com/@fit.anna/video/7304440005556667778": fresh})
    ref = PostRef(
        platform="tiktok",
        platform_post_id="7304440005556667778",
        url=listed.url,
        content_type="slideshow",
        handle="fit.anna",
        extra={"images": stale},
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        fetcher = tt.TikTokFetcher(ytdlp=fake, http=http, pacers=quiet_pacers())
        files = await fetcher.fetch_media(ref, tmp_path, max_bytes=10_000)
    assert "evil.example" not in requested  # refused before any request
    assert [(f.kind, f.position, f.content_type, f.width, f.height) for f in files] == [
        ("image", 0, "image/png", 4, 6),
        ("image", 1, "image/png", 4, 6),
        ("image", 2, "image/png", 4, 6),
    ]
    assert all(f.path.exists() and f.path.parent == tmp_path for f in files)


async def test_instagram_crawl_and_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    from instaloader.exceptions import ProfileNotExistsException, TooManyRequestsException

    posts = [load(f"instagram/post_{k}.json") for k in ("reel", "carousel", "image")]
    async with httpx.AsyncClient() as http:
        fetcher = ig.InstagramFetcher(ytdlp=FakeYtDlp({}), http=http, pacers=quiet_pacers())
        monkeypatch.setattr(
            fetcher, "_crawl_sync", lambda handle: (load("instagram/profile.json"), posts, 0)
        )
        crawl = await fetcher.fetch_profile("cookwithsam", now=NOW)
        assert crawl.profile.follower_count == 45200
        assert [p.content_type for p in crawl.posts] == ["reel", "carousel", "image"]

        def missing(handle: str) -> Any:
            raise ProfileNotExistsException(f"Profile {handle} does not exist.")

        monkeypatch.setattr(fetcher, "_crawl_sync", missing)
        with pytest.raises(ProfileNotFound):
            await fetcher.fetch_profile("ghost", now=NOW)

        def slow(handle: str) -> Any:
            raise TooManyRequestsException("429 Too Many Requests")

        monkeypatch.setattr(fetcher, "_crawl_sync", slow)
        with pytest.raises(RateLimited):
            await fetcher.fetch_profile("cookwithsam", now=NOW)


async def test_instagram_crawl_through_instaloader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The blocking crawl with instaloader's own classes, their network calls replaced."""
    from instaloader.exceptions import BadResponseException
    from instaloader.structures import Post, Profile

    session = tmp_path / "session.json"
    session.write_text(json.dumps({"username": "researcher", "sessionid": "s", "csrftoken": "c"}))
    nodes = [load(f"instagram/post_{k}.json")["node"] for k in ("reel", "carousel", "image")]
    seen: dict[str, Any] = {}

    class Listing:
        def __init__(self, context: Any) -> None:
            self.context, self.index = context, 0

        def __iter__(self) -> Listing:
            return self

        def __next__(self) -> Post:
            self.index += 1
            if self.index == 2:
                raise BadResponseException("Fetching Post metadata failed.")
            if self.index > 4:
                raise StopIteration
            return Post(self.context, nodes[self.index - 2 if self.index > 2 else 0])

    def from_username(cls: Any, context: Any, username: str) -> Profile:
        seen["username"], seen["context"] = username, context
        return Profile(context, dict(load("instagram/profile.json")["node"]))

    monkeypatch.setattr(Profile, "from_username", classmethod(from_username))
    monkeypatch.setattr(Profile, "get_posts", lambda self: Listing(self._context))
    async with httpx.AsyncClient() as http:
        fetcher = ig.InstagramFetcher(
            ytdlp=FakeYtDlp({}),
            http=http,
            pacers=quiet_pacers(),
            session_file=str(session),
            proxy="http://proxy.internal:3128",
        )
        crawl = await fetcher.fetch_profile("cookwithsam", now=NOW)
    assert seen["username"] == "cookwithsam"
    assert seen["context"].username == "researcher"
    assert seen["context"]._session.proxies["https"] == "http://proxy.internal:3128"
    assert [p.platform_post_id for p in crawl.posts] == [
        "C9xReelAbC1",
        "C8yCarouXyZ",
        "C7zImageQwE",
    ]
    assert crawl.listing_complete is False  # one listed post was skipped


async def test_ytdlp_wrapper_offline(tmp_path: Path) -> None:
    from sors.platforms.live.web.ytdlp import YtDlp, downloaded_files, written_thumbnail

    runner = YtDlp(cookies_file=str(tmp_path / "missing-cookies.txt"), proxy="http://p:1")
    opts = runner.options(skip_download=True)
    assert opts["proxy"] == "http://p:1" and opts["ignore_no_formats_error"] is True
    with pytest.raises(YtDlpFailure) as caught:
        await runner.extract("https://www.tiktok.com/@fit.anna", flat=True, limit=1)
    assert type(ttm.map_tiktok_error(caught.value.info, subject="profile")) is Blocked

    video, thumb = tmp_path / "7301.mp4", tmp_path / "7301.webp"
    video.write_bytes(b"v")
    thumb.write_bytes(b"t")
    info = {
        "requested_downloads": [{"filepath": str(video)}, {"filepath": str(tmp_path / "gone.mp4")}],
        "thumbnails": [{"url": "https://x"}, {"url": "https://y", "filepath": str(thumb)}],
    }
    assert downloaded_files(info) == [video]
    assert written_thumbnail(info) == thumb
    assert written_thumbnail({}) is None
