"""YouTube: the Data API v3 when a key is configured, yt-dlp's channel tabs otherwise.

Mappers (pure) turn the API's JSON or yt-dlp's info dicts into snapshots; `YouTubeFetcher`
makes the requests. Hidden counts stay None and are listed in `approximations`; subscriber
counts are rounded by YouTube (three significant figures), so profiles say so.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

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
    best_thumbnail,
    classify_failure,
    from_timestamp,
    from_upload_date,
    get_path,
    merged_listing_is_complete,
    not_found,
    parse_retry_after,
    parse_rfc3339,
    to_float,
    to_int,
)
from .pacing import PacerRegistry
from .ytdlp import YtDlp, YtDlpFailure, downloaded_files

log = logging.getLogger(__name__)

API_BASE = "https://www.googleapis.com/youtube/v3"
HANDLE_RE = re.compile(r"^[a-z0-9._-]{3,30}$")
VIDEO_ID_RE = re.compile(r"^[A-Za-z0-9_-]{11}$")
SHORTS_MAX_SECONDS = 180.0  # YouTube accepts Shorts up to three minutes
SHORTS_GUESS_SECONDS = 60.0  # without better evidence, only this short counts as a Short
_DURATION_RE = re.compile(
    r"^P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?"
    r"(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$"
)
_QUOTA_REASONS = {"quotaExceeded", "dailyLimitExceeded", "dailyLimitExceededUnreg"}
_RATE_REASONS = {"rateLimitExceeded", "userRateLimitExceeded"}
_NOT_FOUND_REASONS = {"channelNotFound", "playlistNotFound", "videoNotFound", "notFound"}
_BLOCKED_REASONS = {
    "keyInvalid",
    "keyExpired",
    "API_KEY_INVALID",
    "accessNotConfigured",
    "SERVICE_DISABLED",
    "forbidden",
    "ipRefererBlocked",
    "API_KEY_HTTP_REFERRER_BLOCKED",
    "API_KEY_IP_ADDRESS_BLOCKED",
}
_PACIFIC = ZoneInfo("America/Los_Angeles")
# Metadata only: dates for flat tab entries ("3 days ago"), and no stream manifests.
_METADATA_OPTIONS = {
    "extractor_args": {
        "youtubetab": {"approximate_date": [""]},
        "youtube": {"skip": ["hls", "dash", "translated_subs"]},
    }
}


def parse_iso8601_duration(value: Any) -> float | None:
    """Seconds in an ISO 8601 duration as the Data API writes them ("PT1M3S", "P1DT2H")."""
    if not isinstance(value, str):
        return None
    m = _DURATION_RE.match(value.strip())
    if not m or value.strip() in ("P", "PT"):
        return None
    weeks, days, hours, minutes = (int(m.group(k) or 0) for k in ("w", "d", "h", "m"))
    seconds = float(m.group("s") or 0)
    return (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds


def channel_url(handle: str) -> str:
    return f"https://www.youtube.com/@{handle}"


def video_url(video_id: str, content_type: str) -> str:
    if content_type == "short":
        return f"https://www.youtube.com/shorts/{video_id}"
    return f"https://www.youtube.com/watch?v={video_id}"


def _hidden(**fields: Any) -> dict[str, str]:
    return {name: "hidden" for name, value in fields.items() if value is None}


# ---- Data API v3 mappers ---------------------------------------------------------------


def api_channel_item(response: Mapping[str, Any]) -> Mapping[str, Any]:
    """The channel of a channels.list answer; forHandle with no match has no `items`."""
    items = response.get("items") or []
    if not items or not isinstance(items[0], Mapping):
        raise ProfileNotFound("YouTube has no channel with this handle")
    return items[0]


def _api_thumbnail(thumbnails: Any) -> str | None:
    for key in ("maxres", "standard", "high", "medium", "default"):
        url = get_path(thumbnails, key, "url")
        if isinstance(url, str):
            return url
    return None


def map_api_channel(item: Mapping[str, Any], handle: str) -> ProfileSnapshot:
    snippet = item.get("snippet") or {}
    stats = item.get("statistics") or {}
    hidden = bool(stats.get("hiddenSubscriberCount"))
    followers = None if hidden else to_int(stats.get("subscriberCount"))
    return ProfileSnapshot(
        platform="youtube",
        handle=handle,
        platform_user_id=item.get("id"),
        display_name=snippet.get("title"),
        bio=snippet.get("description") or None,
        avatar_url=_api_thumbnail(snippet.get("thumbnails")),
        follower_count=followers,
        follower_count_approximate=followers is not None,
        url=channel_url(handle),
    )


def uploads_playlist_id(item: Mapping[str, Any]) -> str | None:
    return get_path(item, "contentDetails", "relatedPlaylists", "uploads")


def shorts_playlist_id(channel_id: str | None) -> str | None:
    """The channel's (undocumented) Shorts-only uploads playlist: UC… → UUSH…."""
    if not channel_id or not channel_id.startswith("UC"):
        return None
    return "UUSH" + channel_id[2:]


def playlist_video_ids(response: Mapping[str, Any]) -> list[str]:
    ids = []
    for item in response.get("items") or ():
        vid = get_path(item, "contentDetails", "videoId") or get_path(
            item, "snippet", "resourceId", "videoId"
        )
        if isinstance(vid, str):
            ids.append(vid)
    return ids


def playlist_oldest_published(response: Mapping[str, Any]) -> datetime | None:
    dates = [
        parse_rfc3339(get_path(item, "contentDetails", "videoPublishedAt"))
        for item in response.get("items") or ()
    ]
    known = [d for d in dates if d is not None]
    return min(known) if known else None


def guess_is_short(duration: float | None, *texts: str | None) -> bool:
    """Heuristic when YouTube did not say: very short, or tagged #shorts and short enough."""
    if duration is None or duration <= 0:
        return False
    if duration <= SHORTS_GUESS_SECONDS:
        return True
    tagged = any("#shorts" in (t or "").lower() for t in texts)
    return tagged and duration <= SHORTS_MAX_SECONDS


def map_api_video(item: Mapping[str, Any], *, is_short: bool | None = None) -> PostSnapshot:
    """One videos.list item. `is_short`: known Shorts membership; None → heuristic."""
    vid = item["id"]
    snippet = item.get("snippet") or {}
    stats = item.get("statistics") or {}
    details = item.get("contentDetails") or {}
    live = item.get("liveStreamingDetails")
    duration = parse_iso8601_duration(details.get("duration"))
    title, description = snippet.get("title"), snippet.get("description")
    broadcast = snippet.get("liveBroadcastContent")
    if isinstance(live, Mapping) or broadcast in ("live", "upcoming"):
        content_type = "live"
    elif is_short if is_short is not None else guess_is_short(duration, title, description):
        content_type = "short"
    else:
        content_type = "video"
    if content_type == "live" and not duration:
        duration = None  # still running: "P0D"
    views = to_int(stats.get("viewCount"))
    likes = to_int(stats.get("likeCount"))
    comments = to_int(stats.get("commentCount"))
    published = parse_rfc3339(snippet.get("publishedAt"))
    if published is None:
        raise ValueError(f"video {vid} has no publishedAt")
    extra: dict[str, Any] = {
        "title": title,
        "description": description,
        "channel_id": snippet.get("channelId"),
        "tags": list(snippet.get("tags") or ()),
        "live_broadcast_content": broadcast,
        "content_type_source": "api"
        if is_short is not None or content_type == "live"
        else "heuristic",
    }
    if isinstance(live, Mapping):
        extra["live"] = {
            k: live.get(k)
            for k in ("actualStartTime", "actualEndTime", "scheduledStartTime", "concurrentViewers")
            if live.get(k) is not None
        }
    return PostSnapshot(
        platform="youtube",
        platform_post_id=vid,
        url=video_url(vid, content_type),
        content_type=content_type,
        caption=title,
        published_at=published,
        duration_seconds=duration,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,  # YouTube does not publish share counts
        thumbnail_url=_api_thumbnail(snippet.get("thumbnails")),
        approximations=_hidden(views=views, likes=likes, comments=comments),
        extra=extra,
    )


def map_api_videos(
    responses: Sequence[Mapping[str, Any]],
    order: Sequence[str],
    *,
    shorts_ids: Collection[str] | None,
    shorts_known_since: datetime | None = None,
) -> list[PostSnapshot]:
    """videos.list answers as snapshots in uploads order; upcoming premieres are left out.

    Shorts membership is authoritative for videos published since `shorts_known_since`
    (the oldest item of the Shorts playlist page we read, when it was cut).
    """
    by_id = {
        item["id"]: item
        for resp in responses
        for item in resp.get("items") or ()
        if isinstance(item, Mapping) and isinstance(item.get("id"), str)
    }
    posts = []
    for vid in order:
        item = by_id.get(vid)
        if item is None or get_path(item, "snippet", "liveBroadcastContent") == "upcoming":
            continue
        is_short: bool | None = None
        if shorts_ids is not None:
            published = parse_rfc3339(get_path(item, "snippet", "publishedAt"))
            if shorts_known_since is None or (published and published >= shorts_known_since):
                is_short = vid in shorts_ids
        posts.append(map_api_video(item, is_short=is_short))
    return posts


def seconds_until_quota_reset(now: datetime) -> float:
    """Data API quotas reset at midnight Pacific Time."""
    local = now.astimezone(_PACIFIC)
    midnight = (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(60.0, (midnight - local).total_seconds())


def map_api_error(
    status: int,
    body: Any,
    *,
    subject: Subject,
    now: datetime,
    retry_after: float | None = None,
) -> PlatformError:
    """A Data API error answer ({"error": {"code", "message", "errors": [{reason}]}})."""
    error = body.get("error") if isinstance(body, Mapping) else None
    error = error if isinstance(error, Mapping) else {}
    message = str(error.get("message") or f"YouTube Data API answered HTTP {status}")
    reasons = {
        r
        for part in ("errors", "details")
        for e in error.get(part) or ()
        if isinstance(e, Mapping) and isinstance(r := e.get("reason"), str)
    }
    if reasons & _QUOTA_REASONS:
        return RateLimited(message, retry_after=seconds_until_quota_reset(now))
    if status == 429 or reasons & _RATE_REASONS:
        return RateLimited(message, retry_after=retry_after)
    if status == 404 or reasons & _NOT_FOUND_REASONS:
        return not_found(subject, message)
    if status in (401, 403) or reasons & _BLOCKED_REASONS:
        return Blocked(message)
    if status >= 500:
        return TransientError(message, retry_after=retry_after)
    return PlatformError(message)


# ---- yt-dlp mappers --------------------------------------------------------------------


def map_ytdlp_channel(tab: Mapping[str, Any], handle: str) -> ProfileSnapshot:
    """A channel tab's playlist info (`https://www.youtube.com/@h/videos`)."""
    avatar = next(
        (t.get("url") for t in tab.get("thumbnails") or () if t.get("id") == "avatar_uncropped"),
        None,
    )
    followers = to_int(tab.get("channel_follower_count"))
    return ProfileSnapshot(
        platform="youtube",
        handle=handle,
        platform_user_id=tab.get("channel_id"),
        display_name=tab.get("channel") or tab.get("uploader"),
        bio=tab.get("description") or None,
        avatar_url=avatar,
        follower_count=followers,
        follower_count_approximate=followers is not None,
        url=channel_url(handle),
    )


def ytdlp_content_type(info: Mapping[str, Any], tab: str | None = None) -> str:
    live_status = info.get("live_status")
    if (
        tab == "streams"
        or live_status in ("is_live", "was_live", "post_live")
        or info.get("media_type") == "livestream"
    ):
        return "live"
    if tab == "shorts" or info.get("media_type") == "short":
        return "short"
    if "/shorts/" in str(info.get("url") or ""):
        return "short"
    duration = to_float(info.get("duration"))
    width, height = to_int(info.get("width")), to_int(info.get("height"))
    if duration and duration <= SHORTS_MAX_SECONDS and width and height and height > width:
        return "short"
    return "video"


def map_ytdlp_video(info: Mapping[str, Any], *, tab: str | None = None) -> PostSnapshot | None:
    """A video's info dict: full (`/watch?v=`) or a flat tab entry as a fallback.

    Returns None when the entry cannot be placed in time (a flat entry without a date).
    """
    vid = info.get("id")
    if not isinstance(vid, str):
        return None
    approximations: dict[str, str] = {}
    published = from_timestamp(info.get("timestamp")) or from_timestamp(
        info.get("release_timestamp")
    )
    if published is None:
        published = from_upload_date(info.get("upload_date"))
        if published is not None:
            approximations["published_at"] = "day"
    flat = info.get("_type") == "url"
    if flat and published is not None:
        approximations["published_at"] = "approximate"  # from "3 days ago"
    if published is None:
        return None
    content_type = ytdlp_content_type(info, tab)
    views = to_int(info.get("view_count"))
    likes = to_int(info.get("like_count"))
    comments = to_int(info.get("comment_count"))
    approximations = {**_hidden(views=views, likes=likes, comments=comments), **approximations}
    if flat:
        # A listing shows rounded views and nothing else.
        if views is not None:
            approximations["views"] = "rounded"
        approximations.update(likes="unavailable", comments="unavailable")
    duration = to_float(info.get("duration"))
    return PostSnapshot(
        platform="youtube",
        platform_post_id=vid,
        url=video_url(vid, content_type),
        content_type=content_type,
        caption=info.get("title"),
        published_at=published,
        duration_seconds=duration if duration else None,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,
        thumbnail_url=info.get("thumbnail") or best_thumbnail(info.get("thumbnails")),
        approximations=approximations,
        extra={
            "title": info.get("title"),
            "description": info.get("description"),
            "channel_id": info.get("channel_id"),
            "tags": list(info.get("tags") or ()),
            "live_status": info.get("live_status"),
            "source": "ytdlp_flat" if flat else "ytdlp",
        },
    )


def map_ytdlp_error(info: FailureInfo, *, subject: Subject) -> PlatformError:
    text = info.message.lower()
    if "does not have a" in text and "tab" in text:
        return not_found(subject, info.message)
    if "redirected to youtube.com home page" in text or "this channel does not exist" in text:
        return ProfileNotFound(info.message)
    return classify_failure(info, subject=subject)


# ---- fetching --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class YouTubeLimits:
    api_posts: int = 50
    tab_posts: Mapping[str, int] = field(
        default_factory=lambda: {"videos": 15, "shorts": 15, "streams": 5}
    )


class YouTubeDataAPI:
    """The three list calls we need, 1 quota unit each."""

    def __init__(self, api_key: str, http: httpx.AsyncClient, pacers: PacerRegistry) -> None:
        self._key = api_key
        self._http = http
        self._pacer = pacers.get("youtube_api")

    async def get(
        self, resource: str, params: Mapping[str, Any], *, subject: Subject, now: datetime
    ) -> dict[str, Any]:
        async def call() -> dict[str, Any]:
            try:
                # The key travels in a header so it never appears in a logged URL.
                resp = await self._http.get(
                    f"{API_BASE}/{resource}",
                    params={k: v for k, v in params.items() if v is not None},
                    headers={"X-Goog-Api-Key": self._key, "Accept": "application/json"},
                )
            except httpx.TransportError as exc:
                raise TransientError(
                    f"YouTube Data API unreachable: {exc.__class__.__name__}"
                ) from exc
            try:
                body = resp.json()
            except ValueError:
                body = None
            if resp.status_code != 200:
                raise map_api_error(
                    resp.status_code,
                    body,
                    subject=subject,
                    now=now,
                    retry_after=parse_retry_after(resp.headers.get("retry-after")),
                )
            if not isinstance(body, dict):
                raise TransientError("YouTube Data API answered with something that is not JSON")
            return body

        return await self._pacer.call(call)


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
        self._api = YouTubeDataAPI(api_key, http, pacers) if api_key else None
        self._http = http
        self._ytdlp = ytdlp
        self._pacer = pacers.get("youtube")
        self._limits = limits or YouTubeLimits()

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        if self._api is not None:
            return await self._fetch_api(handle, now)
        return await self._fetch_ytdlp(handle, now)

    # -- Data API path

    async def _fetch_api(self, handle: str, now: datetime) -> CrawlSnapshot:
        api = self._api
        assert api is not None
        channels = await api.get(
            "channels",
            {"part": "snippet,statistics,contentDetails", "forHandle": f"@{handle}"},
            subject="profile",
            now=now,
        )
        item = api_channel_item(channels)
        profile = map_api_channel(item, handle)
        ids = await self._api_playlist(item, now)
        shorts_ids, shorts_since = await self._api_shorts(item.get("id"), now)
        responses = []
        for start in range(0, len(ids), 50):
            batch = ids[start : start + 50]
            responses.append(
                await api.get(
                    "videos",
                    {
                        "part": "snippet,statistics,contentDetails,liveStreamingDetails",
                        "id": ",".join(batch),
                        "maxResults": 50,
                    },
                    subject="profile",
                    now=now,
                )
            )
        posts = map_api_videos(
            responses, ids, shorts_ids=shorts_ids, shorts_known_since=shorts_since
        )
        # The uploads playlist is one newest-first listing; videos.list drops nothing we keep
        # except upcoming premieres, which are not posts yet.
        return CrawlSnapshot(profile=profile, posts=posts, fetched_at=now, listing_complete=True)

    async def _api_playlist(self, item: Mapping[str, Any], now: datetime) -> list[str]:
        api = self._api
        assert api is not None
        uploads = uploads_playlist_id(item)
        limit = self._limits.api_posts
        ids: list[str] = []
        token: str | None = None
        if not uploads:
            return ids
        while len(ids) < limit:
            try:
                page = await api.get(
                    "playlistItems",
                    {
                        "part": "contentDetails",
                        "playlistId": uploads,
                        "maxResults": min(50, limit - len(ids)),
                        "pageToken": token,
                    },
                    subject="profile",
                    now=now,
                )
            except ProfileNotFound:
                return ids  # a channel without uploads has no uploads playlist
            ids.extend(vid for vid in playlist_video_ids(page) if vid not in ids)
            token = page.get("nextPageToken")
            if not token:
                break
        return ids[:limit]

    async def _api_shorts(
        self, channel_id: str | None, now: datetime
    ) -> tuple[set[str] | None, datetime | None]:
        api = self._api
        playlist = shorts_playlist_id(channel_id)
        if api is None or playlist is None:
            return None, None
        try:
            page = await api.get(
                "playlistItems",
                {"part": "contentDetails", "playlistId": playlist, "maxResults": 50},
                subject="profile",
                now=now,
            )
        except PlatformError as exc:
            if exc.retryable:
                raise
            return None, None  # no Shorts playlist: fall back to the duration heuristic
        since = playlist_oldest_published(page) if page.get("nextPageToken") else None
        return set(playlist_video_ids(page)), since

    # -- yt-dlp path

    async def _fetch_ytdlp(self, handle: str, now: datetime) -> CrawlSnapshot:
        profile: ProfileSnapshot | None = None
        tabs: list[tuple[list[PostSnapshot], bool]] = []
        posts: dict[str, PostSnapshot] = {}
        detail_blocked = False
        for tab, limit in self._limits.tab_posts.items():
            if limit <= 0:
                continue
            try:
                listing = await self._extract(
                    f"{channel_url(handle)}/{tab}", "profile", flat=True, limit=limit
                )
            except ProfileNotFound:
                if tab == "videos":
                    # No videos tab can also mean no such channel: confirm with the home tab.
                    listing = await self._extract(
                        f"{channel_url(handle)}/featured", "profile", flat=True, limit=0
                    )
                    profile = profile or map_ytdlp_channel(listing, handle)
                continue
            profile = profile or map_ytdlp_channel(listing, handle)
            entries = [e for e in listing.get("entries") or () if isinstance(e, Mapping)]
            tab_posts: list[PostSnapshot] = []
            for entry in entries:
                if entry.get("live_status") == "is_upcoming":
                    continue
                post, detail_blocked = await self._video_details(entry, tab, detail_blocked)
                if post is not None and post.platform_post_id not in posts:
                    posts[post.platform_post_id] = post
                    tab_posts.append(post)
            tabs.append((tab_posts, len(entries) >= limit))
        if profile is None:
            raise ProfileNotFound("YouTube has no channel with this handle")
        ordered = sorted(posts.values(), key=lambda p: p.published_at, reverse=True)
        return CrawlSnapshot(
            profile=profile,
            posts=ordered,
            fetched_at=now,
            listing_complete=merged_listing_is_complete(tabs),
        )

    async def _video_details(
        self, entry: Mapping[str, Any], tab: str, blocked: bool
    ) -> tuple[PostSnapshot | None, bool]:
        """The full info of one listed video; the flat entry when YouTube will not say more."""
        vid = entry.get("id")
        if blocked or not isinstance(vid, str) or not VIDEO_ID_RE.match(vid):
            return map_ytdlp_video(entry, tab=tab), blocked
        try:
            info = await self._extract(f"https://www.youtube.com/watch?v={vid}", "post")
        except PostNotFound:
            return map_ytdlp_video(entry, tab=tab), blocked  # members-only, removed meanwhile…
        except Blocked:
            # A bot check answers every further video the same way: stop asking this crawl.
            return map_ytdlp_video(entry, tab=tab), True
        return map_ytdlp_video(info, tab=tab) or map_ytdlp_video(entry, tab=tab), blocked

    async def _extract(self, url: str, subject: Subject, **kwargs: Any) -> dict[str, Any]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.extract(url, options=_METADATA_OPTIONS, **kwargs)
            except YtDlpFailure as f:
                raise map_ytdlp_error(f.info, subject=subject) from f

        return await self._pacer.call(call)

    # -- media

    async def fetch_media(self, ref: PostRef, dest_dir: Path, *, max_bytes: int) -> list[MediaFile]:
        vid = ref.platform_post_id
        if not VIDEO_ID_RE.match(vid):
            raise PostNotFound("not a YouTube video id")
        files = [await self._thumbnail(ref, dest_dir, max_bytes)]
        try:
            audio = await self._audio(vid, dest_dir, max_bytes)
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

    async def _audio(self, vid: str, dest_dir: Path, max_bytes: int) -> list[MediaFile]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.download(
                    f"https://www.youtube.com/watch?v={vid}",
                    dest_dir,
                    fmt="bestaudio[ext=m4a][abr<=160]/bestaudio[abr<=160]/bestaudio/worst",
                    max_filesize=max_bytes,
                )
            except YtDlpFailure as f:
                raise map_ytdlp_error(f.info, subject="post") from f

        info = await self._pacer.call(call)
        return [
            MediaFile(
                kind="audio",
                path=path,
                content_type=net.content_type_for(path),
                duration_seconds=to_float(info.get("duration")),
            )
            for path in downloaded_files(info)
        ]
