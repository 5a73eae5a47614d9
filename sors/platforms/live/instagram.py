"""Instagram: instaloader for profiles and their post listings, yt-dlp for reels' media.

Mappers read instaloader's JSON structures (`instaloader.get_json_structure`: `{"node": …,
"instaloader": {"node_type": …}}`, the format of its `.json` exports) or bare nodes, never
instaloader's properties, which may fire extra requests.
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

from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    MediaFile,
    PlatformError,
    PostNotFound,
    PostRef,
    PostSnapshot,
    ProfileNotFound,
    ProfileSnapshot,
    RateLimited,
    TransientError,
    UnsupportedMedia,
)

from . import net
from .common import (
    FailureInfo,
    Subject,
    classify_failure,
    from_timestamp,
    get_path,
    listing_is_complete,
    not_found,
    to_float,
    to_int,
)
from .pacing import PacerRegistry
from .ytdlp import YtDlp, YtDlpFailure, video_media

HANDLE_RE = re.compile(r"^[a-z0-9._]{1,30}$")
SHORTCODE_RE = re.compile(r"^[A-Za-z0-9_-]{5,64}$")


def profile_url(handle: str) -> str:
    return f"https://www.instagram.com/{handle}/"


def post_url(shortcode: str, content_type: str) -> str:
    kind = "reel" if content_type == "reel" else "p"
    return f"https://www.instagram.com/{kind}/{shortcode}/"


def node_of(structure: Mapping[str, Any]) -> Mapping[str, Any]:
    """The node of an instaloader JSON structure, or the argument when it is a bare node."""
    node = structure.get("node")
    if isinstance(node, Mapping) and "instaloader" in structure:
        return node
    return structure


def _first_int(*values: Any) -> int | None:
    for value in values:
        number = to_int(value)
        if number is not None:
            return number
    return None


# ---- profiles --------------------------------------------------------------------------


def map_instagram_profile(structure: Mapping[str, Any], handle: str) -> ProfileSnapshot:
    node = node_of(structure)
    if node.get("is_private") is True:
        raise ProfileNotFound("this Instagram account is private")
    user_id = node.get("id") or node.get("pk")
    return ProfileSnapshot(
        platform="instagram",
        handle=handle,
        platform_user_id=str(user_id) if user_id is not None else None,
        display_name=node.get("full_name") or None,
        bio=node.get("biography") or None,
        avatar_url=(
            node.get("profile_pic_url_hd")
            or get_path(node, "hd_profile_pic_url_info", "url")
            or node.get("profile_pic_url")
        ),
        follower_count=_first_int(
            get_path(node, "edge_followed_by", "count"), node.get("follower_count")
        ),
        url=profile_url(handle),
    )


# ---- posts -----------------------------------------------------------------------------


def _typename(node: Mapping[str, Any]) -> str:
    name = str(node.get("__typename") or node.get("typename") or "")
    return name.removeprefix("XDT")  # newer GraphQL answers say XDTGraphVideo


def instagram_content_type(node: Mapping[str, Any]) -> str:
    typename = _typename(node)
    product = node.get("product_type") or get_path(node, "iphone_struct", "product_type")
    if typename == "GraphSidecar" or product == "carousel_container":
        return "carousel"
    if product == "clips" or typename == "GraphVideo" or node.get("is_video") is True:
        return "reel"
    return "image"


def carousel_slides(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    slides = []
    for edge in get_path(node, "edge_sidecar_to_children", "edges") or ():
        child = edge.get("node") if isinstance(edge, Mapping) else None
        if not isinstance(child, Mapping):
            continue
        slides.append(
            {
                "url": child.get("display_url"),
                "is_video": bool(child.get("is_video")),
                "video_url": child.get("video_url"),
            }
        )
    return slides


def _caption(node: Mapping[str, Any]) -> str | None:
    text = get_path(node, "edge_media_to_caption", "edges", 0, "node", "text")
    if text is None:
        caption = node.get("caption")
        text = caption.get("text") if isinstance(caption, Mapping) else caption
    return text if isinstance(text, str) and text else None


def map_instagram_post(structure: Mapping[str, Any]) -> PostSnapshot | None:
    node = node_of(structure)
    shortcode = node.get("shortcode") or node.get("code")
    published = from_timestamp(
        node.get("taken_at_timestamp") or node.get("date") or node.get("taken_at")
    )
    if not isinstance(shortcode, str) or published is None:
        return None
    content_type = instagram_content_type(node)
    counts_hidden = node.get("like_and_view_counts_disabled") is True
    views = None
    # Plays are what the app shows as views; listing nodes of the older web API carry only
    # `video_view_count`, a different (smaller) count, flagged as such.
    plays = _first_int(node.get("video_play_count"), node.get("play_count"))
    views_kind = None
    if content_type == "reel" and not counts_hidden:
        views = plays
        if views is None:
            views = _first_int(node.get("video_view_count"), node.get("view_count"))
            views_kind = "video_views" if views is not None else None
    likes = None
    if not counts_hidden:
        likes = _first_int(
            get_path(node, "edge_media_preview_like", "count"),
            get_path(node, "edge_liked_by", "count"),
            node.get("like_count"),
        )
    comments = None
    if node.get("comments_disabled") is not True:
        comment_count = node.get("comments")
        comments = _first_int(
            get_path(node, "edge_media_to_comment", "count"),
            get_path(node, "edge_media_to_parent_comment", "count"),
            comment_count if not isinstance(comment_count, Mapping) else None,
            node.get("comment_count"),
        )
    display = node.get("display_url") or node.get("thumbnail_src")
    slides = (
        carousel_slides(node)
        if content_type == "carousel"
        else [
            {"url": display, "is_video": content_type == "reel", "video_url": node.get("video_url")}
        ]
    )
    extra: dict[str, Any] = {
        "media_id": str(node["id"]) if node.get("id") is not None else None,
        "product_type": node.get("product_type"),
        "pinned": bool(node.get("pinned_for_users") or node.get("timeline_pinned_user_ids")),
        "images": [s["url"] for s in slides if not s["is_video"] and s["url"]],
        "slides": slides,
    }
    if content_type == "reel":
        extra["video_url"] = node.get("video_url")
    duration = to_float(node.get("video_duration")) if content_type == "reel" else None
    return PostSnapshot(
        platform="instagram",
        platform_post_id=shortcode,
        url=post_url(shortcode, content_type),
        content_type=content_type,
        caption=_caption(node),
        published_at=published,
        duration_seconds=duration,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,  # Instagram does not publish share counts
        thumbnail_url=display,
        approximations=_approximations(views, views_kind, likes, comments, content_type, duration),
        extra=extra,
    )


def _approximations(
    views: int | None,
    views_kind: str | None,
    likes: int | None,
    comments: int | None,
    content_type: str,
    duration: float | None,
) -> dict[str, str]:
    out = {
        name: "hidden"
        for name, value in (("views", views), ("likes", likes), ("comments", comments))
        if value is None
    }
    if views_kind:
        out["views"] = views_kind
    out["shares"] = "hidden"  # Instagram publishes no share count
    if content_type == "reel" and duration is None:
        out["duration_seconds"] = "hidden"
    return out


def map_instagram_crawl(
    profile: Mapping[str, Any],
    posts: list[Mapping[str, Any]],
    *,
    handle: str,
    now: datetime,
    skipped: int = 0,
) -> CrawlSnapshot:
    """`skipped`: listed posts Instagram would not describe; they leave a gap in the listing."""
    snapshot = map_instagram_profile(profile, handle)
    mapped = [p for p in (map_instagram_post(s) for s in posts) if p is not None]
    complete = not skipped and len(mapped) == len(posts) and listing_is_complete(mapped)
    return CrawlSnapshot(profile=snapshot, posts=mapped, fetched_at=now, listing_complete=complete)


# ---- failures --------------------------------------------------------------------------


class InstagramSlowDown(Exception):
    """Raised in place of instaloader's own long sleeps, so a worker is never parked."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"Instagram asks us to wait {seconds:.0f} s")
        self.seconds = seconds


def map_instaloader_error(exc: BaseException, *, subject: Subject) -> PlatformError:
    from instaloader import exceptions as ie

    message = str(exc) or exc.__class__.__name__
    text = message.lower()
    if isinstance(exc, PlatformError):
        return exc
    if isinstance(exc, InstagramSlowDown):
        return RateLimited(message, retry_after=exc.seconds)
    if (
        isinstance(exc, ie.TooManyRequestsException)
        or "429" in text
        or "too many requests" in text
        or "please wait a few minutes" in text
    ):
        return RateLimited(message)
    if isinstance(exc, ie.ProfileNotExistsException | ie.PrivateProfileNotFollowedException):
        return not_found(subject, message)
    if isinstance(exc, ie.QueryReturnedNotFoundException):
        return not_found(subject, message)
    if isinstance(exc, ie.LoginRequiredException):
        return not_found(subject, message) if "private" in text else Blocked(message)
    if isinstance(
        exc, ie.LoginException | ie.QueryReturnedForbiddenException | ie.AbortDownloadException
    ):
        return Blocked(message)
    if isinstance(exc, ie.QueryReturnedBadRequestException):
        if any(k in text for k in ("checkpoint", "challenge", "feedback_required")):
            return Blocked(message)
        return TransientError(message)
    if isinstance(exc, ie.BadResponseException):
        if subject == "post" and "metadata failed" in text:
            return PostNotFound(message)
        return TransientError(message)
    if isinstance(exc, ie.ConnectionException):
        if "login page" in text:
            return Blocked(message)
        return TransientError(message)
    return classify_failure(FailureInfo(message=message), subject=subject)


def map_instagram_ytdlp_error(info: FailureInfo, *, subject: Subject) -> PlatformError:
    text = info.message.lower()
    if "there is no video in this post" in text:
        return UnsupportedMedia(info.message)
    return classify_failure(info, subject=subject)


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

    def copy_session(session, request_timeout=None):  # type: ignore[no-untyped-def]
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
                    post_url(shortcode, "reel"),
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
