"""Instagram: instaloader for profiles and their post listings, yt-dlp for reels' media.

instaloader runs in a thread, with an optional session file and with its long sleeps turned
into a typed slow-down; the pure mapping of what it returns is in `instagram_map`.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import pickle
import re
import time
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
from sors.platforms.live import net
from sors.platforms.live.common import Subject
from sors.platforms.live.pacing import PacerRegistry
from sors.platforms.live.web.instagram_map import (
    InstagramSlowDown,
    map_instagram_crawl,
    map_instagram_post,
    map_instagram_ytdlp_error,
    map_instaloader_error,
)
from sors.platforms.live.web.ytdlp import YtDlp, YtDlpFailure, video_media

SHORTCODE_RE = re.compile(r"^[A-Za-z0-9_-]{5,64}$")


# ---- sessions ------------------------------------------------------------------------


class _NoGlobalsUnpickler(pickle.Unpickler):
    """instaloader's session files are a pickled dict of cookie strings: nothing else loads."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a session file")


def read_session_file(path: str | Path) -> tuple[str, dict[str, str]]:
    """(username, cookies) from an instaloader session file or a JSON cookie dict.

    JSON: `{"sessionid": …, "csrftoken": …, "ds_user_id": …}`, optionally with "username".
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
        try:
            data = json.loads(raw)
        except ValueError:
            data = _NoGlobalsUnpickler(io.BytesIO(raw)).load()
    except (OSError, pickle.UnpicklingError, EOFError) as exc:
        raise Blocked(f"cannot read the Instagram session file: {exc.__class__.__name__}") from exc
    if not isinstance(data, dict):
        raise Blocked("the Instagram session file holds no cookies")
    username = str(data.pop("username", "") or "")
    cookies = {str(k): str(v) for k, v in (data.get("cookies") or data).items()}
    if not username:
        username = path.name.removeprefix("session-") if path.name.startswith("session-") else ""
    cookies.setdefault("csrftoken", "")
    return username or cookies.get("ds_user_id", "") or "session", cookies


@functools.cache
def _keep_proxies_in_session_copies() -> None:
    """instaloader copies its session for GraphQL calls without the proxies; keep them."""
    from instaloader import instaloadercontext

    original = instaloadercontext.copy_session

    def copy_session(session: Any, request_timeout: float | None = None) -> Any:
        new = original(session, request_timeout)
        new.proxies.update(getattr(session, "proxies", None) or {})
        return new

    instaloadercontext.copy_session = copy_session


# ---- fetching --------------------------------------------------------------------------


class InstagramFetcher:
    def __init__(
        self,
        *,
        ytdlp: YtDlp,
        http: httpx.AsyncClient,
        pacers: PacerRegistry,
        session_file: str | None = None,
        proxy: str | None = None,
        limit: int = 12,
        max_inline_sleep: float = 30.0,
    ) -> None:
        self._ytdlp = ytdlp
        self._http = http
        self._pacer = pacers.get("instagram")
        self._session_file = session_file
        self._proxy = proxy
        self._limit = limit
        self._max_inline_sleep = max_inline_sleep

    def _loader(self) -> Any:
        import instaloader

        max_sleep = self._max_inline_sleep

        class Controller(instaloader.RateController):
            def sleep(self, secs: float) -> None:
                if secs > max_sleep:
                    raise InstagramSlowDown(secs)
                time.sleep(secs)

        loader = instaloader.Instaloader(
            sleep=True,
            quiet=True,
            download_pictures=False,
            download_videos=False,
            download_video_thumbnails=False,
            save_metadata=False,
            compress_json=False,
            max_connection_attempts=1,
            request_timeout=30.0,
            rate_controller=Controller,
            iphone_support=False,
        )
        if self._session_file:
            username, cookies = read_session_file(self._session_file)
            loader.load_session(username, cookies)
        if self._proxy:
            _keep_proxies_in_session_copies()
            session = loader.context._session
            session.proxies.update({"http": self._proxy, "https": self._proxy})
        return loader

    def _crawl_sync(self, handle: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
        """(profile structure, post structures, posts skipped) — blocking, in a thread."""
        import instaloader
        from instaloader import exceptions as ie

        loader = self._loader()
        try:
            profile = instaloader.Profile.from_username(loader.context, handle)
            structure = instaloader.get_json_structure(profile)
            if structure["node"].get("is_private") is True:
                return structure, [], 0
            posts: list[dict[str, Any]] = []
            skipped = 0
            listing = profile.get_posts()
            for _ in range(self._limit):
                try:
                    post = next(listing)
                except StopIteration:
                    break
                except (
                    ie.BadResponseException,
                    ie.PostChangedException,
                    ie.QueryReturnedNotFoundException,
                ):
                    # One post Instagram will not describe must not sink the crawl.
                    skipped += 1
                    continue
                posts.append(instaloader.get_json_structure(post))
            return structure, posts, skipped
        finally:
            loader.close()

    def _post_sync(self, shortcode: str) -> dict[str, Any]:
        import instaloader

        loader = self._loader()
        try:
            return instaloader.get_json_structure(
                instaloader.Post.from_shortcode(loader.context, shortcode)
            )
        finally:
            loader.close()

    async def _thread(self, subject: Subject, fn: Any, *args: Any) -> Any:
        async def call() -> Any:
            try:
                return await asyncio.to_thread(fn, *args)
            except Exception as exc:
                raise map_instaloader_error(exc, subject=subject) from exc

        return await self._pacer.call(call)

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        profile, posts, skipped = await self._thread("profile", self._crawl_sync, handle)
        return map_instagram_crawl(profile, posts, handle=handle, now=now, skipped=skipped)

    async def fetch_media(self, ref: PostRef, dest_dir: Path, *, max_bytes: int) -> list[MediaFile]:
        shortcode = ref.platform_post_id
        if not SHORTCODE_RE.match(shortcode):
            raise PostNotFound("not an Instagram shortcode")
        if ref.content_type == "reel":
            return await self._reel(shortcode, dest_dir, max_bytes)
        slides = [s for s in ref.extra.get("slides") or () if isinstance(s, Mapping)]
        if slides:
            try:
                return await self._download_slides(slides, shortcode, dest_dir, max_bytes)
            except (PostNotFound, Blocked, UnsupportedMedia):
                pass  # CDN links expire: ask Instagram for fresh ones
        fresh = map_instagram_post(await self._thread("post", self._post_sync, shortcode))
        if fresh is None:
            raise PostNotFound("Instagram did not describe this post")
        return await self._download_slides(fresh.extra["slides"], shortcode, dest_dir, max_bytes)

    async def _reel(self, shortcode: str, dest_dir: Path, max_bytes: int) -> list[MediaFile]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.download(
                    urls.post_url("instagram", None, shortcode, "reel"),
                    dest_dir,
                    fmt="best[vcodec!=none][acodec!=none]/best",
                    thumbnail=True,
                    max_filesize=max_bytes,
                )
            except YtDlpFailure as f:
                raise map_instagram_ytdlp_error(f.info, subject="post") from f

        info = await self._pacer.call(call)
        return video_media(info, "Instagram")

    async def _download_slides(
        self, slides: Any, shortcode: str, dest_dir: Path, max_bytes: int
    ) -> list[MediaFile]:
        files = []
        for position, slide in enumerate(slides):
            is_video = bool(slide.get("is_video")) and isinstance(slide.get("video_url"), str)
            url = slide.get("video_url") if is_video else slide.get("url")
            if not isinstance(url, str):
                continue
            path, ctype = await self._pacer.call(
                functools.partial(
                    net.download,
                    self._http,
                    "instagram",
                    url,
                    dest_dir / f"{shortcode}.{position:02d}",
                    max_bytes=max_bytes,
                )
            )
            width, height = (None, None) if is_video else net.image_size(path)
            files.append(
                MediaFile(
                    kind="video" if is_video else "image",
                    path=path,
                    content_type=ctype,
                    position=position,
                    width=width,
                    height=height,
                )
            )
        if not files:
            raise UnsupportedMedia("this Instagram post has no media we can fetch")
        return files
