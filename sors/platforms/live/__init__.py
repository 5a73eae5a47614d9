"""The live platforms (TikTok, Instagram, YouTube) behind the adapter interface.

`LiveAdapter(settings)` implements `PlatformAdapter`. Each platform's profiles come from the
source `sources.choose` picks for it (`web` scrapers, YouTube's Data API `api`, or the
`apify` data provider); media always come from the platform's own hosts. Each source has a
fetcher module (requests, paced per platform: `tiktok`, `instagram`, `youtube` with
`youtube_api` and `youtube_ytdlp`; `apify`) and pure mappers from its data to snapshots
(`*_map`).
Requests only ever go to the platforms' own hosts, to URLs we build from validated handles
and ids, or to CDN URLs the platforms themselves returned (checked against their hosts).

Settings read: `youtube_api_key`, `http_proxy`, `instagram_session_file`,
`tiktok_cookies_file`, the `*_source` and `apify_*` settings (each may be None).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

import httpx

from sors.config import Settings
from sors.platforms import handles, sources
from sors.platforms.base import (
    PLATFORMS,
    CommentsSnapshot,
    CommentsUnsupported,
    CrawlSnapshot,
    DiscoveryUnsupported,
    MediaFile,
    Platform,
    PostRef,
    ProfileNotFound,
    UnsupportedMedia,
)
from sors.platforms.live.api.comment_threads import fetch_comment_threads
from sors.platforms.live.api.discovery import YouTubeDiscovery
from sors.platforms.live.apify.source import ApifyClient, ApifyComments, ApifySource
from sors.platforms.live.pacing import PacerRegistry, PacingPolicy
from sors.platforms.live.web.instagram import InstagramFetcher
from sors.platforms.live.web.tiktok import TikTokFetcher
from sors.platforms.live.web.ytdlp import YtDlp
from sors.platforms.live.youtube import YouTubeFetcher, YouTubeLimits

__all__ = ["LiveAdapter", "LiveLimits", "PacerRegistry", "PacingPolicy", "normalize_handle"]

class Fetcher(Protocol):
    """A scraper or API client of one platform (`web/`, `youtube`)."""

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot: ...

    async def fetch_media(
        self, ref: PostRef, dest_dir: Path, *, max_bytes: int
    ) -> list[MediaFile]: ...


@dataclass(frozen=True, slots=True)
class LiveLimits:
    """How much one crawl reads; each listed post may cost a request on some platforms."""

    youtube: YouTubeLimits = field(default_factory=YouTubeLimits)
    tiktok_posts: int = 35
    instagram_posts: int = 12
    max_media_bytes: int = 300 * 1024 * 1024


def normalize_handle(platform: str, handle: str) -> str:
    """The canonical handle (`sors.platforms.handles`, the one rule of each platform); a
    handle the platform cannot have → ProfileNotFound."""
    try:
        return handles.normalize_handle(platform, handle)
    except handles.InvalidHandle as exc:
        raise ProfileNotFound(f"not a valid {platform} handle") from exc


class LiveAdapter:
    def __init__(
        self,
        settings: Settings,
        *,
        pacers: PacerRegistry | None = None,
        http_client: httpx.AsyncClient | None = None,
        limits: LiveLimits | None = None,
    ) -> None:
        self._settings = settings
        self._pacers = pacers or PacerRegistry()
        self._limits = limits or LiveLimits()
        self._http = http_client
        self._owns_http = http_client is None
        self._proxy: str | None = settings.sources.http_proxy
        self._fetchers: dict[str, Fetcher] = {}
        self._providers: dict[str, ApifySource] = {}
        self._apify: ApifyClient | None = None
        self._discovery: YouTubeDiscovery | None = None

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(
                proxy=self._proxy,
                timeout=httpx.Timeout(30.0, connect=10.0),
                headers={"User-Agent": "sors (self-hosted research service)"},
                follow_redirects=False,
            )
        return self._http

    def _fetcher(self, platform: str) -> Fetcher:
        known = self._fetchers.get(platform)
        if known is not None:
            return known
        settings, http = self._settings, self._client()
        fetcher: Fetcher
        if platform == "youtube":
            api = sources.choose(settings, "youtube").source == "api"
            fetcher = YouTubeFetcher(
                api_key=settings.youtube.api_key if api else None,
                http=http,
                ytdlp=YtDlp(proxy=self._proxy),
                pacers=self._pacers,
                limits=self._limits.youtube,
            )
        elif platform == "tiktok":
            fetcher = TikTokFetcher(
                ytdlp=YtDlp(
                    proxy=self._proxy,
                    cookies_file=settings.sources.tiktok_cookies_file,
                    sleep_between_requests=1.0,
                ),
                http=http,
                pacers=self._pacers,
                limit=self._limits.tiktok_posts,
            )
        elif platform == "instagram":
            fetcher = InstagramFetcher(
                ytdlp=YtDlp(proxy=self._proxy, sleep_between_requests=1.0),
                http=http,
                pacers=self._pacers,
                session_file=settings.sources.instagram_session_file,
                proxy=self._proxy,
                limit=self._limits.instagram_posts,
            )
        else:
            raise ProfileNotFound(f"unknown platform {platform!r}")
        self._fetchers[platform] = fetcher
        return fetcher

    def apify_client(self) -> ApifyClient:
        if self._apify is None:
            s = self._settings
            self._apify = ApifyClient(
                self._client(),
                token=s.apify.token,
                base_url=s.apify.base_url,
                run_timeout=float(s.apify.run_timeout_seconds),
            )
        return self._apify

    def _provider(self, platform: str) -> ApifySource:
        source = self._providers.get(platform)
        if source is None:
            actor = getattr(self._settings.apify, f"{platform}_actor")
            limit = {"tiktok": self._limits.tiktok_posts,
                     "instagram": self._limits.instagram_posts}.get(platform, 30)
            source = ApifySource(self.apify_client(), platform, actor, limit=limit)
            self._providers[platform] = source
        return source

    async def fetch_profile(
        self, platform: Platform, handle: str, *, now: datetime
    ) -> CrawlSnapshot:
        canonical = normalize_handle(platform, handle)
        choice = sources.choose(self._settings, platform)
        if choice.source == "apify":
            return await self._provider(platform).fetch_profile(canonical, now=now)
        snapshot: CrawlSnapshot = await self._fetcher(platform).fetch_profile(canonical, now=now)
        return dataclasses.replace(snapshot, source=choice.source)

    async def fetch_comments(
        self, post: PostRef, *, limit: int, now: datetime
    ) -> CommentsSnapshot:
        """A post's comments through its platform's source: Apify's comment actors for
        TikTok and Instagram, the Data API's commentThreads for YouTube (1 quota unit a
        page of 100). The scrapers (`web`) fetch no comments."""
        choice = sources.choose(self._settings, post.platform)
        if choice.source == "apify" and post.platform in ("tiktok", "instagram"):
            a = self._settings.apify
            comments = ApifyComments(self.apify_client(), {
                "tiktok": a.tiktok_comments_actor, "instagram": a.instagram_comments_actor})
            return await comments.fetch_comments(post.platform, post.platform_post_id,
                                                 post.url, limit=limit, now=now)
        if post.platform == "youtube" and self._settings.youtube.api_key:
            fetcher = self._fetcher("youtube")
            assert isinstance(fetcher, YouTubeFetcher)
            if fetcher._api is not None:
                return await fetch_comment_threads(fetcher._api, post.platform_post_id,
                                                   limit=limit, now=now)
        raise CommentsUnsupported(
            f"{post.platform} comments come from the Apify source (SORS_APIFY_TOKEN) or, for "
            f"YouTube, the Data API (SORS_YOUTUBE_API_KEY); {post.platform} is served by "
            f"`{choice.source}` ({choice.reason})")

    async def discover(
        self, platform: Platform, niche: str | None, *, since: datetime, now: datetime,
        limit: int,
    ) -> Sequence[str]:
        """New creators: YouTube through the Data API (with a key). TikTok and Instagram have
        no stable public listing of new creators (their discover/explore pages need a login
        and change often), so discovery is not offered there."""
        if platform != "youtube":
            raise DiscoveryUnsupported(f"{platform} has no stable public listing of new creators")
        fetcher = self._fetcher("youtube")
        assert isinstance(fetcher, YouTubeFetcher)
        if fetcher._api is None:
            raise DiscoveryUnsupported("YouTube discovery needs SORS_YOUTUBE_API_KEY (Data API)")
        if self._discovery is None:
            per_day = int(self._settings.youtube.discovery_searches_per_day)
            self._discovery = YouTubeDiscovery(fetcher._api, per_day)
        return await self._discovery.discover(niche, since=since, now=now, limit=limit)

    async def fetch_media(self, post: PostRef, dest_dir: Path, *, now: datetime) -> list[MediaFile]:
        if post.platform not in PLATFORMS:
            raise UnsupportedMedia(f"unknown platform {post.platform!r}")
        await asyncio.to_thread(dest_dir.mkdir, parents=True, exist_ok=True)
        files: list[MediaFile] = await self._fetcher(post.platform).fetch_media(
            post, dest_dir, max_bytes=self._limits.max_media_bytes
        )
        return files

    async def fetch_thumbnail(self, platform: Platform, url: str) -> bytes:
        """A post's thumbnail image, from the platform's own hosts only (a few hundred KB)."""
        import tempfile

        from sors.platforms.live.net import download

        with tempfile.TemporaryDirectory(prefix="sors-thumb-") as tmp:
            path, _ = await download(self._client(), platform, url, Path(tmp) / "thumb",
                                     max_bytes=5 * 1024 * 1024)
            return await asyncio.to_thread(path.read_bytes)

    async def aclose(self) -> None:
        if self._http is not None and self._owns_http:
            await self._http.aclose()
        self._http = None
        self._fetchers.clear()
        self._providers.clear()
        self._apify = None
