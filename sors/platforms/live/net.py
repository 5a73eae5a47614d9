"""Direct downloads from the platforms' own hosts and CDNs, and nothing else.

Media URLs come from the platforms' answers (and are stored with posts), never from API
callers; still, every URL and every redirect hop is checked against the platform's hosts
before a byte is requested, so a poisoned record cannot turn the service into a proxy.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import anyio
import httpx

from sors.platforms.base import Platform, TransientError, UnsupportedMedia, is_media_type
from sors.platforms.live.common import Subject, from_http_status, parse_retry_after

ALLOWED_HOST_SUFFIXES: Mapping[str, tuple[str, ...]] = {
    "youtube": (
        "youtube.com",
        "youtu.be",
        "googleapis.com",
        "ytimg.com",
        "ggpht.com",
        "googleusercontent.com",
        "googlevideo.com",
    ),
    "tiktok": (
        "tiktok.com",
        "tiktokcdn.com",
        "tiktokcdn-us.com",
        "tiktokcdn-eu.com",
        "tiktokv.com",
        "tiktokv.us",
        "tiktokv.eu",
        "ttwstatic.com",
        "byteoversea.com",
        "ibytedtos.com",
        "ibyteimg.com",
        "muscdn.com",
    ),
    "instagram": ("instagram.com", "cdninstagram.com", "fbcdn.net"),
}

REFERERS: Mapping[str, str] = {
    "youtube": "https://www.youtube.com/",
    "tiktok": "https://www.tiktok.com/",
    "instagram": "https://www.instagram.com/",
}

BROWSER_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)

_EXT_TYPES = {
    "mp4": "video/mp4",
    "m4v": "video/mp4",
    "webm": "video/webm",
    "mov": "video/quicktime",
    "m4a": "audio/mp4",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "ogg": "audio/ogg",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "heic": "image/heic",
    "avif": "image/avif",
}
_TYPE_EXTS = {v: k for k, v in reversed(list(_EXT_TYPES.items()))}


def is_platform_url(platform: str, url: str) -> bool:
    """True for an https URL on one of `platform`'s hosts (no credentials, default port)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme != "https" or not host or parts.username or parts.password:
        return False
    if port not in (None, 443):
        return False
    suffixes = ALLOWED_HOST_SUFFIXES.get(platform, ())
    return any(host == s or host.endswith("." + s) for s in suffixes)


def require_platform_url(platform: str, url: str) -> str:
    if not is_platform_url(platform, url):
        raise UnsupportedMedia(f"refusing to fetch a URL outside {platform}'s hosts")
    return url


def content_type_for(path: Path, header: str | None = None) -> str:
    """The MIME type of a downloaded file: the server's (when specific), else by extension."""
    if header:
        base = header.split(";", 1)[0].strip().lower()
        if base and base not in ("application/octet-stream", "binary/octet-stream"):
            return base
    ext = path.suffix.lower().lstrip(".")
    return _EXT_TYPES.get(ext) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def extension_for(content_type: str | None, default: str = "bin") -> str:
    base = (content_type or "").split(";", 1)[0].strip().lower()
    return _TYPE_EXTS.get(base) or (mimetypes.guess_extension(base) or "").lstrip(".") or default


def image_size(path: Path) -> tuple[int | None, int | None]:
    try:
        from PIL import Image

        with Image.open(path) as img:
            return img.width, img.height
    except Exception:  # not an image Pillow reads (e.g. HEIC): sizes stay unknown
        return None, None


async def download(
    client: httpx.AsyncClient,
    platform: Platform,
    url: str,
    dest_stem: Path,
    *,
    subject: Subject = "post",
    max_bytes: int = 300 * 1024 * 1024,
    max_redirects: int = 3,
) -> tuple[Path, str]:
    """Fetch `url` into `dest_stem` + an extension; returns (path, content type)."""
    headers = {"User-Agent": BROWSER_UA, "Referer": REFERERS.get(platform, "")}
    current = require_platform_url(platform, url)
    for _ in range(max_redirects + 1):
        try:
            async with client.stream(
                "GET", current, headers=headers, follow_redirects=False
            ) as resp:
                if resp.is_redirect:
                    location = resp.headers.get("location", "")
                    current = require_platform_url(platform, urljoin(current, location))
                    continue
                if resp.status_code != 200:
                    raise from_http_status(
                        resp.status_code,
                        subject=subject,
                        message=f"media download answered HTTP {resp.status_code}",
                        retry_after=parse_retry_after(resp.headers.get("retry-after")),
                    )
                ctype = resp.headers.get("content-type")
                ext = extension_for(
                    ctype, default=Path(urlsplit(current).path).suffix.lstrip(".") or "bin"
                )
                path = dest_stem.with_name(f"{dest_stem.name}.{ext}")
                content_type = content_type_for(path, ctype)
                if not is_media_type(content_type):
                    # An HTML page or an SVG would run script wherever it is served.
                    raise UnsupportedMedia(
                        f"the media host answered {content_type}, not an image, video or audio"
                    )
                await _write(resp, path, max_bytes)
                return path, content_type
        except httpx.TransportError as exc:
            raise TransientError(f"media download failed: {exc.__class__.__name__}") from exc
    raise UnsupportedMedia("too many redirects")


async def _write(resp: httpx.Response, path: Path, max_bytes: int) -> None:
    size = 0
    try:
        async with await anyio.open_file(path, "wb") as fh:
            async for chunk in resp.aiter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise UnsupportedMedia("media file larger than the configured limit")
                await fh.write(chunk)
    except BaseException:
        await anyio.Path(path).unlink(missing_ok=True)
        raise
