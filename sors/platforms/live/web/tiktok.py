"""TikTok: yt-dlp's `tiktok:user` listing plus the profile page's embedded JSON.

yt-dlp downloads the profile page (`https://www.tiktok.com/@h`) anyway to find the user's
secUid; our subclass of its extractor keeps the page's `webapp.user-detail` object (followers,
bio, avatar, nickname, user id) and the raw fields yt-dlp drops from listed items: `imagePost`
(a slideshow's images) and `isPinnedItem`.

The pure mapping of what comes back is in `tiktok_map`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from sors.platforms import urls
from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    MediaFile,
    PostNotFound,
    PostRef,
    UnsupportedMedia,
)
from sors.platforms.handles import is_canonical_handle
from sors.platforms.live import net
from sors.platforms.live.pacing import PacerRegistry
from sors.platforms.live.web.tiktok_map import (
    POST_ID_RE,
    map_tiktok_crawl,
    map_tiktok_error,
    slideshow_images,
    user_detail_status,
)
from sors.platforms.live.web.ytdlp import YtDlp, YtDlpFailure, downloaded_files, video_media

# ---- extractor subclasses ------------------------------------------------------------


def _annotate(info: dict[str, Any], item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        image_post = item.get("imagePost")
        if isinstance(image_post, Mapping) and image_post.get("images"):
            info["tiktok_image_post"] = dict(image_post)
        if item.get("isPinnedItem"):
            info["tiktok_pinned"] = True
        # yt-dlp reads the rounded `stats`; keep both copies for tiktok_counts.
        for key, name in (("stats", "tiktok_stats"), ("statsV2", "tiktok_stats_v2")):
            if isinstance(item.get(key), Mapping):
                info[name] = dict(item[key])
    return info


@functools.cache
def _user_ie_class() -> type:
    from yt_dlp.extractor.tiktok import TikTokUserIE

    class SorsTikTokUserIE(TikTokUserIE):
        _sors_user_detail: dict[str, Any] | None = None

        def _get_universal_data(self, webpage: str, display_id: str) -> Any:
            data = super()._get_universal_data(webpage, display_id)
            detail = data.get("webapp.user-detail") if isinstance(data, dict) else None
            if isinstance(detail, dict):
                self._sors_user_detail = detail
            return data

        def _parse_aweme_video_web(
            self, aweme_detail: Any, webpage_url: str, video_id: str, extract_flat: bool = False
        ) -> Any:
            info = super()._parse_aweme_video_web(
                aweme_detail, webpage_url, video_id, extract_flat=extract_flat
            )
            return _annotate(info, aweme_detail)

    return SorsTikTokUserIE


@functools.cache
def _post_ie_class() -> type:
    from yt_dlp.extractor.tiktok import TikTokIE

    class SorsTikTokIE(TikTokIE):
        def _parse_aweme_video_web(
            self, aweme_detail: Any, webpage_url: str, video_id: str, extract_flat: bool = False
        ) -> Any:
            info = super()._parse_aweme_video_web(
                aweme_detail, webpage_url, video_id, extract_flat=extract_flat
            )
            return _annotate(info, aweme_detail)

    return SorsTikTokIE


def user_extractor() -> Any:
    return _user_ie_class()()


def post_extractor() -> Any:
    return _post_ie_class()()


# ---- fetching --------------------------------------------------------------------------


def _post_page(ref: PostRef) -> str:
    """The page yt-dlp reads a post from: its video URL (a slideshow's too), under its owner;
    without one, TikTok's `@_` stand-in, which it redirects to the owner."""
    if ref.handle is None:
        return f"https://www.tiktok.com/@_/video/{ref.platform_post_id}"
    try:
        return urls.post_url("tiktok", ref.handle, ref.platform_post_id, "video")
    except ValueError as exc:
        raise PostNotFound(f"not a TikTok post: {exc}") from exc


class TikTokFetcher:
    def __init__(
        self, *, ytdlp: YtDlp, http: httpx.AsyncClient, pacers: PacerRegistry, limit: int = 35
    ) -> None:
        self._ytdlp = ytdlp
        self._http = http
        self._pacer = pacers.get("tiktok")
        self._limit = limit

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        ie = user_extractor()

        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.extract(
                    urls.profile_url("tiktok", handle), flat=True, limit=self._limit, ie=ie
                )
            except YtDlpFailure as f:
                detail = ie._sors_user_detail
                if detail is not None and "does not have any videos posted" in f.info.message:
                    return {"_type": "playlist", "entries": []}
                status = user_detail_status(detail)
                raise map_tiktok_error(f.info, subject="profile", user_status=status) from f

        playlist = await self._pacer.call(call)
        return map_tiktok_crawl(playlist, ie._sors_user_detail, handle=handle, now=now)

    async def _extract_post(self, ref: PostRef) -> dict[str, Any]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.extract(
                    _post_page(ref), ie=post_extractor()
                )
            except YtDlpFailure as f:
                raise map_tiktok_error(f.info, subject="post") from f

        return await self._pacer.call(call)

    async def fetch_media(self, ref: PostRef, dest_dir: Path, *, max_bytes: int) -> list[MediaFile]:
        if not POST_ID_RE.match(ref.platform_post_id):
            raise PostNotFound("not a TikTok post id")
        if ref.handle is not None and not is_canonical_handle("tiktok", ref.handle):
            raise PostNotFound("not a TikTok handle")
        if ref.content_type == "slideshow":
            return await self._slideshow(ref, dest_dir, max_bytes)
        return await self._video(ref, dest_dir, max_bytes)

    async def _video(self, ref: PostRef, dest_dir: Path, max_bytes: int) -> list[MediaFile]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.download(
                    _post_page(ref),
                    dest_dir,
                    fmt="best[vcodec!=none][acodec!=none]/best[vcodec!=none]/best",
                    thumbnail=True,
                    max_filesize=max_bytes,
                    ie=post_extractor(),
                )
            except YtDlpFailure as f:
                raise map_tiktok_error(f.info, subject="post") from f

        info = await self._pacer.call(call)
        images = slideshow_images(info)
        if images:  # it was a slideshow after all; yt-dlp fetched its music
            for path in downloaded_files(info):
                path.unlink(missing_ok=True)
            return await self._download_images(images, ref.platform_post_id, dest_dir, max_bytes)
        return video_media(info, "TikTok")

    async def _slideshow(self, ref: PostRef, dest_dir: Path, max_bytes: int) -> list[MediaFile]:
        stored = [u for u in ref.extra.get("images") or () if isinstance(u, str)]
        if stored:
            try:
                return await self._download_images(
                    stored, ref.platform_post_id, dest_dir, max_bytes
                )
            except (PostNotFound, Blocked, UnsupportedMedia):
                pass  # signed CDN links expire: ask TikTok for fresh ones
        info = await self._extract_post(ref)
        images = slideshow_images(info)
        if not images:
            raise UnsupportedMedia("TikTok listed no images for this slideshow")
        return await self._download_images(images, ref.platform_post_id, dest_dir, max_bytes)

    async def _download_images(
        self, urls: list[str], post_id: str, dest_dir: Path, max_bytes: int
    ) -> list[MediaFile]:
        files = []
        for position, url in enumerate(urls):
            path, ctype = await self._pacer.call(
                functools.partial(
                    net.download,
                    self._http,
                    "tiktok",
                    url,
                    dest_dir / f"{post_id}.{position:02d}",
                    max_bytes=max_bytes,
                )
            )
            width, height = net.image_size(path)
            files.append(
                MediaFile(
                    kind="image",
                    path=path,
                    content_type=ctype,
                    position=position,
                    width=width,
                    height=height,
                )
            )
        return files
