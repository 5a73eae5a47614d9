"""A thin, thread-friendly wrapper around yt-dlp.

yt-dlp is blocking, so every call runs in `asyncio.to_thread` with a fresh `YoutubeDL`
(instances are not thread-safe). Failures come out as `YtDlpFailure`, carrying what the
platform modules need to map them to typed failures: the message, the HTTP status and
Retry-After of the request that failed, and whether it was a network error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import structlog

from sors.platforms.live.common import FailureInfo, parse_retry_after

log = structlog.get_logger(__name__)


class YtDlpFailure(Exception):
    def __init__(self, info: FailureInfo) -> None:
        super().__init__(info.message)
        self.info = info


class _Logger:
    """yt-dlp talks a lot; keep it at debug level. Errors are raised, not logged; warnings
    are kept, as some failed requests only show up as warnings."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def debug(self, msg: str) -> None:
        log.debug("yt-dlp: %s", msg)

    def info(self, msg: str) -> None:
        log.debug("yt-dlp: %s", msg)

    def warning(self, msg: str) -> None:
        log.debug("yt-dlp warning: %s", msg)
        if len(self.warnings) < 20:
            self.warnings.append(msg.removeprefix("WARNING: ").strip())

    def error(self, msg: str) -> None:
        log.debug("yt-dlp error: %s", msg)


def failure_from_exception(exc: BaseException) -> FailureInfo:
    """Dig the request failure out of a yt-dlp exception chain."""
    from yt_dlp.networking.exceptions import HTTPError, TransportError
    from yt_dlp.utils import DownloadError, ExtractorError

    status: int | None = None
    retry_after: float | None = None
    network = False
    message: str | None = None
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        cur = todo.pop(0)
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, HTTPError) and status is None:
            status = cur.status
            headers = getattr(cur.response, "headers", None) or {}
            retry_after = parse_retry_after(
                headers.get("Retry-After") or headers.get("retry-after")
            )
        elif isinstance(cur, TransportError):
            network = True
        if isinstance(cur, ExtractorError):
            message = message or cur.orig_msg
            todo.append(cur.cause if isinstance(cur.cause, BaseException) else None)
            todo.append(cur.exc_info[1] if cur.exc_info else None)
        if isinstance(cur, DownloadError):
            todo.append(cur.exc_info[1] if cur.exc_info else None)
        todo.extend((cur.__cause__, cur.__context__))
    if message is None:
        message = str(exc)
    message = message.removeprefix("ERROR: ").strip()
    if status is not None and f"HTTP Error {status}" not in message:
        message = f"{message} (HTTP Error {status})"
    return FailureInfo(message=message, status=status, retry_after=retry_after, network=network)


class YtDlp:
    def __init__(
        self,
        *,
        proxy: str | None = None,
        cookies_file: str | None = None,
        socket_timeout: float = 20.0,
        sleep_between_requests: float = 0.0,
    ) -> None:
        self.proxy = proxy
        self.cookies_file = cookies_file
        self.socket_timeout = socket_timeout
        self.sleep_between_requests = sleep_between_requests

    def options(self, **extra: object) -> dict[str, object]:
        """yt-dlp's parameters for one call."""
        opts: dict[str, object] = {
            "quiet": True,
            "no_warnings": True,
            "noprogress": True,
            "no_color": True,
            "logger": _Logger(),
            "socket_timeout": self.socket_timeout,
            "retries": 2,
            "extractor_retries": 1,
            "fragment_retries": 2,
            "cachedir": False,
            "ignoreerrors": False,
            "ignore_no_formats_error": True,
            "noplaylist": True,
            "check_formats": False,
        }
        if self.sleep_between_requests:
            opts["sleep_interval_requests"] = self.sleep_between_requests
        if self.proxy:
            opts["proxy"] = self.proxy
        opts.update(extra)
        return opts

    async def extract(
        self,
        url: str,
        *,
        flat: bool = False,
        limit: int | None = None,
        ie: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Metadata of `url` (no download). `flat`: a listing without its entries' pages.

        `ie` is an extractor instance to use instead of yt-dlp's own choice (our subclasses
        that keep raw data yt-dlp would drop).
        """
        opts = self.options(skip_download=True, **dict(options or {}))
        if flat:
            opts["extract_flat"] = "in_playlist"
            opts["noplaylist"] = False
        if limit is not None:
            opts["playlistend"] = limit
        return await asyncio.to_thread(self._run, url, opts, ie, False)

    async def download(
        self,
        url: str,
        dest_dir: Path,
        *,
        fmt: str,
        thumbnail: bool = False,
        max_filesize: int | None = None,
        ie: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Download `url` into `dest_dir`; the info dict carries the files' paths."""
        opts = self.options(
            format=fmt,
            outtmpl={"default": str(dest_dir / "%(id)s.%(ext)s")},
            writethumbnail=thumbnail,
            overwrites=True,
            ignore_no_formats_error=False,
            **dict(options or {}),
        )
        if max_filesize:
            opts["max_filesize"] = max_filesize
        return await asyncio.to_thread(self._run, url, opts, ie, True)

    def _run(self, url: str, opts: dict[str, object], ie: Any, download: bool) -> dict[str, Any]:
        import yt_dlp

        tmpdir: str | None = None
        try:
            if self.cookies_file:
                # yt-dlp writes the jar back when it closes; work on a copy so concurrent
                # calls never race on the operator's file.
                tmpdir = tempfile.mkdtemp(prefix="sors-ytdlp-")
                jar = Path(tmpdir) / "cookies.txt"
                try:
                    shutil.copyfile(self.cookies_file, jar)
                except OSError as exc:
                    message = "cannot read the configured cookies file, so no login is available"
                    raise YtDlpFailure(FailureInfo(message=message, status=401)) from exc
                opts["cookiefile"] = str(jar)
            with yt_dlp.YoutubeDL(opts) as ydl:
                ie_key = None
                if ie is not None:
                    ydl.add_info_extractor(ie)
                    ie_key = ie.ie_key()
                info = ydl.extract_info(url, download=download, ie_key=ie_key)
                if not isinstance(info, dict):
                    raise YtDlpFailure(FailureInfo(message="yt-dlp returned no information"))
                return info
        except YtDlpFailure:
            raise
        except Exception as exc:
            info = failure_from_exception(exc)
            logger = opts.get("logger")
            if isinstance(logger, _Logger) and logger.warnings:
                info = dataclasses.replace(info, warnings=tuple(logger.warnings))
            raise YtDlpFailure(info) from exc
        finally:
            if tmpdir:
                shutil.rmtree(tmpdir, ignore_errors=True)


def downloaded_files(info: Mapping[str, Any]) -> list[Path]:
    """Paths of the media files a download produced (not thumbnails)."""
    paths = [
        Path(d["filepath"])
        for d in info.get("requested_downloads") or ()
        if isinstance(d, Mapping) and d.get("filepath")
    ]
    return [p for p in paths if p.exists()]


def written_thumbnail(info: Mapping[str, Any]) -> Path | None:
    for thumb in reversed(info.get("thumbnails") or ()):
        path = thumb.get("filepath") if isinstance(thumb, Mapping) else None
        if path and Path(path).exists():
            return Path(path)
    return None


def video_media(info: Mapping[str, Any], platform_name: str) -> list[Any]:
    """The video (and thumbnail) files one yt-dlp download wrote, as MediaFiles; raises
    UnsupportedMedia when the platform offered no video."""
    from sors.platforms.base import MediaFile, UnsupportedMedia
    from sors.platforms.live import net
    from sors.platforms.live.common import to_float, to_int

    files = [
        MediaFile(
            kind="video",
            path=path,
            content_type=net.content_type_for(path),
            width=to_int(info.get("width")),
            height=to_int(info.get("height")),
            duration_seconds=to_float(info.get("duration")),
        )
        for path in downloaded_files(info)
    ]
    if not files:
        raise UnsupportedMedia(f"{platform_name} offered no downloadable video")
    thumb = written_thumbnail(info)
    if thumb is not None:
        width, height = net.image_size(thumb)
        files.append(
            MediaFile(
                kind="thumbnail",
                path=thumb,
                content_type=net.content_type_for(thumb),
                width=width,
                height=height,
            )
        )
    return files
