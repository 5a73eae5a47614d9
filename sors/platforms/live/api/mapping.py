"""YouTube's pure mappers for the Data API (JSON → snapshots and failures), and what the yt-dlp
mappers (`youtube_ytdlp_map`) share with them: URLs, durations, the Shorts rule.

Nothing here makes a request, so every rule is tested on fixtures. Hidden counts stay None
and are listed in `approximations`; subscriber counts are rounded by YouTube (three
significant figures), so profiles say so.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sors.platforms import urls
from sors.platforms.base import (
    Blocked,
    PlatformError,
    PostSnapshot,
    ProfileNotFound,
    ProfileSnapshot,
    RateLimited,
    SourceUnavailable,
    TransientError,
)
from sors.platforms.live.common import (
    Subject,
    get_path,
    not_found,
    parse_rfc3339,
    profile_url_of,
    to_int,
)

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
# The key itself is refused or restricted (recorded: keyInvalid 400 of 2019; a 403
# `forbidden` whose ErrorInfo says API_KEY_SERVICE_BLOCKED, 2022): an operator must act.
_BAD_KEY_REASONS = {
    "keyInvalid",
    "keyExpired",
    "API_KEY_INVALID",
    "API_KEY_SERVICE_BLOCKED",
    "accessNotConfigured",
    "SERVICE_DISABLED",
    "ipRefererBlocked",
    "API_KEY_HTTP_REFERRER_BLOCKED",
    "API_KEY_IP_ADDRESS_BLOCKED",
}
# YouTube's own back end failing, whatever the status says (recorded: a 403
# PERMISSION_DENIED whose reason is SERVICE_UNAVAILABLE in youtube.CoreErrorDomain, 2022):
# retried with backoff.
_TRANSIENT_REASONS = {"SERVICE_UNAVAILABLE", "serviceUnavailable", "backendError",
                      "internalError"}
_BLOCKED_REASONS = {"forbidden"}
_PACIFIC = ZoneInfo("America/Los_Angeles")


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


def hidden_counts(**fields: Any) -> dict[str, str]:
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
        url=profile_url_of("youtube", handle),
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
    extra: dict[str, object] = {
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
        url=urls.post_url("youtube", None, vid, content_type),  # ValueError: not a video id
        content_type=content_type,
        caption=title,
        published_at=published,
        duration_seconds=duration,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,  # YouTube does not publish share counts
        thumbnail_url=_api_thumbnail(snippet.get("thumbnails")),
        approximations=hidden_counts(views=views, likes=likes, comments=comments),
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
    if bad := sorted(reasons & _BAD_KEY_REASONS):
        return SourceUnavailable(f"YouTube refused the API key ({', '.join(bad)}: {message}); "
                                 "check SORS_YOUTUBE_API_KEY and its restrictions")
    if status >= 500 or reasons & _TRANSIENT_REASONS:
        return TransientError(message, retry_after=retry_after)
    if status == 404 or reasons & _NOT_FOUND_REASONS:
        return not_found(subject, message)
    if status in (401, 403) or reasons & _BLOCKED_REASONS:
        return Blocked(message)
    return PlatformError(message)
