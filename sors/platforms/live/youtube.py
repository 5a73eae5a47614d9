"""YouTube: the Data API v3 when a key is configured, yt-dlp's channel tabs otherwise.

`YouTubeFetcher` is what the live adapter calls: it chooses the crawl (`youtube_api` or
`youtube_ytdlp`; the pure mappers of both are in `youtube_map`) and fetches a video's media,
its thumbnail from YouTube's image host and its audio through yt-dlp.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
import structlog

from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    MediaFile,
    PlatformError,
    PostNotFound,
    PostRef,
    UnsupportedMedia,
)
from sors.platforms.live import net
from sors.platforms.live.api.client import YouTubeApiFetcher, YouTubeDataAPI
from sors.platforms.live.api.mapping import VIDEO_ID_RE
from sors.platforms.live.pacing import PacerRegistry
from sors.platforms.live.web.youtube import YouTubeYtDlpFetcher
from sors.platforms.live.web.ytdlp import YtDlp

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class YouTubeLimits:
    api_posts: int = 50
    tab_posts: Mapping[str, int] = field(
        default_factory=lambda: {"videos": 15, "shorts": 15, "streams": 5}
    )


class YouTubeFetcher:
    def __init__(
        self,
        *,
        api_key: str | None,
        http: httpx.AsyncClient,
        ytdlp: YtDlp,
        pacers: PacerRegistry,
        limits: YouTubeLimits | None = None,
    ) -> None:
        limits = limits or YouTubeLimits()
        # The live adapter's discovery shares this client (and its quota pacing).
        self._api = YouTubeDataAPI(api_key, http, pacers) if api_key else None
        self._http = http
        self._pacer = pacers.get("youtube")
        self._api_fetcher = (
            YouTubeApiFetcher(self._api, max_posts=limits.api_posts) if self._api else None
        )
        self._ytdlp_fetcher = YouTubeYtDlpFetcher(ytdlp, self._pacer, tab_posts=limits.tab_posts)

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        if self._api_fetcher is not None:
            return await self._api_fetcher.fetch_profile(handle, now=now)
        return await self._ytdlp_fetcher.fetch_profile(handle, now=now)

    async def fetch_media(self, ref: PostRef, dest_dir: Path, *, max_bytes: int) -> list[MediaFile]:
        vid = ref.platform_post_id
        if not VIDEO_ID_RE.match(vid):
            raise PostNotFound("not a YouTube video id")
        files = [await self._thumbnail(ref, dest_dir, max_bytes)]
        try:
            audio = await self._ytdlp_fetcher.download_audio(vid, dest_dir, max_bytes)
        except PlatformError as exc:
            if exc.retryable:
                raise
            # yt-dlp cannot always download from YouTube (bot checks, PO tokens); the
            # thumbnail is what API callers get anyway.
            log.info("youtube audio for %s not downloaded: %s", vid, exc)
        else:
            files.extend(audio)
        return files

    async def _thumbnail(self, ref: PostRef, dest_dir: Path, max_bytes: int) -> MediaFile:
        vid = ref.platform_post_id
        candidates = [
            u
            for u in (
                ref.extra.get("thumbnail_url"),
                f"https://i.ytimg.com/vi/{vid}/maxresdefault.jpg",
                f"https://i.ytimg.com/vi/{vid}/hqdefault.jpg",
            )
            if isinstance(u, str) and net.is_platform_url("youtube", u)
        ]
        last: PlatformError = UnsupportedMedia("no thumbnail")
        for url in candidates:
            try:
                path, ctype = await self._pacer.call(
                    functools.partial(
                        net.download,
                        self._http,
                        "youtube",
                        url,
                        dest_dir / f"{vid}.thumb",
                        max_bytes=max_bytes,
                    )
                )
            except (PostNotFound, Blocked, UnsupportedMedia) as exc:
                last = exc
                continue
            width, height = net.image_size(path)
            return MediaFile(
                kind="thumbnail", path=path, content_type=ctype, width=width, height=height
            )
        raise last
