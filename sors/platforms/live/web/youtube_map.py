"""YouTube's pure mappers for yt-dlp: channel-tab and video info dicts → snapshots, and
yt-dlp's failures → typed platform errors. Nothing here makes a request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sors.platforms.base import PlatformError, PostSnapshot, ProfileNotFound, ProfileSnapshot
from sors.platforms.live.api.mapping import SHORTS_MAX_SECONDS, hidden_counts
from sors.platforms.live.common import (
    FailureInfo,
    Subject,
    best_thumbnail,
    classify_failure,
    from_timestamp,
    from_upload_date,
    not_found,
    post_url_of,
    profile_url_of,
    to_float,
    to_int,
)


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
        url=profile_url_of("youtube", handle),
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
    url = post_url_of("youtube", None, vid, content_type)
    if url is None:
        return None
    views = to_int(info.get("view_count"))
    likes = to_int(info.get("like_count"))
    comments = to_int(info.get("comment_count"))
    approximations = {
        **hidden_counts(views=views, likes=likes, comments=comments), **approximations}
    if content_type == "short" and views is not None and not flat:
        # yt-dlp's `view_count` of a Short is its engaged views, not the plays the Shorts
        # player shows since 2025 (yt-dlp #13122): another kind of count.
        approximations["views"] = "engaged_views"
    if flat:
        # A listing shows rounded views and nothing else.
        if views is not None:
            approximations["views"] = "rounded"
        approximations.update(likes="unavailable", comments="unavailable")
    duration = to_float(info.get("duration"))
    return PostSnapshot(
        platform="youtube",
        platform_post_id=vid,
        url=url,
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
