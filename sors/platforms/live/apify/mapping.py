"""Apify actors' dataset items → snapshots: `clockworks/tiktok-scraper`,
`apify/instagram-scraper` (posts, or profile `details` with their latest posts) and
`streamers/youtube-scraper`. Pure: the Apify source and `sors import` both use them.

Counts keep the actors' values. TikTok's are TikTok's own (rounded to about three
significant figures once large, `tiktok_counts`); Instagram's `videoPlayCount` is what the
app shows as views and `videoViewCount` the older, smaller video-view figure: the plays are
`views` and the video views are kept beside them (`extra["other_view_counts"]`), or are
`views`, flagged `video_views`, when no plays are given. A hidden count (absent, null, or
Instagram's -1 for hidden likes) is None and flagged `hidden`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from sors.platforms.base import Platform, PostSnapshot, ProfileSnapshot
from sors.platforms.live.common import (
    from_timestamp,
    get_path,
    parse_rfc3339,
    post_url_of,
    profile_url_of,
    to_float,
    to_int,
)
from sors.platforms.live.web import tiktok_counts
from sors.platforms.live.web.tiktok_map import POST_ID_RE
from sors.platforms.sounds import sound_ref

_YT_HANDLE = re.compile(r"youtube\.com/@([^/?#]+)", re.I)
_HMS = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{2})$")


@dataclass(frozen=True, slots=True)
class Group:
    """One creator's profile and posts as items describe them."""

    profile: ProfileSnapshot
    posts: list[PostSnapshot]


def nonnegative(value: Any) -> int | None:
    """A count, or None when absent or hidden (Instagram sends -1 for hidden likes)."""
    n = to_int(value)
    return n if n is not None and n >= 0 else None


def item_error(item: Mapping[str, Any]) -> str | None:
    """The message of an item the actor wrote instead of a result (`{"error": …}`)."""
    error, description = item.get("error"), item.get("errorDescription")
    if (error or description) and not (item.get("id") or item.get("shortCode")):
        return ": ".join(str(x) for x in (error, description) if x)
    return None


# ---- TikTok ------------------------------------------------------------------------------


def tiktok_profile(author: Mapping[str, Any], handle: str | None = None) -> ProfileSnapshot:
    name = str(author.get("name") or author.get("uniqueId") or handle or "").lower()
    fans = nonnegative(author.get("fans"))
    return ProfileSnapshot(
        platform="tiktok",
        handle=name,
        platform_user_id=str(author["id"]) if author.get("id") else None,
        display_name=author.get("nickName") or None,
        bio=author.get("signature") or None,
        avatar_url=author.get("originalAvatarUrl") or author.get("avatar") or None,
        follower_count=fans,
        follower_count_approximate=fans is not None and tiktok_counts.looks_display_rounded(fans),
        url=profile_url_of("tiktok", name),
    )


# TikTok videos last at most an hour: a longer `videoMeta.duration` is in milliseconds, as
# the actor's 2026 builds write it (10603 for a 10.6 s video); earlier builds wrote seconds.
_LONGEST_SECONDS = 3600


def durations_in_ms(items: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a set of items (one export, one run) gives durations in milliseconds."""
    return any(
        (to_float(get_path(i, "videoMeta", "duration")) or 0) > _LONGEST_SECONDS for i in items
    )


def tiktok_post(item: Mapping[str, Any], *, duration_ms: bool = False) -> PostSnapshot | None:
    vid = str(item.get("id") or "")
    published = parse_rfc3339(item.get("createTimeISO")) or from_timestamp(item.get("createTime"))
    if not POST_ID_RE.match(vid) or published is None:
        return None
    author = item.get("authorMeta") or {}
    handle = str(author.get("name") or author.get("uniqueId") or "").lower()
    images = [
        link.get("downloadLink") or link.get("tiktokLink")
        for link in item.get("slideshowImageLinks") or ()
        if isinstance(link, Mapping)
    ]
    slideshow = bool(item.get("isSlideshow")) or bool(images)
    content_type = "slideshow" if slideshow else "video"
    url = post_url_of("tiktok", handle, vid, content_type)
    if url is None:  # no owner (or no id) a TikTok URL can name
        return None
    # The actor's counts are TikTok's as they stand: exact unless they have its rounding shape.
    counts = tiktok_counts.reconcile(tiktok_counts.POST_COUNTS, None, item)
    duration = to_float(get_path(item, "videoMeta", "duration"))
    if duration and duration_ms:
        duration = round(duration / 1000, 3)
    extra: dict[str, object] = {
        "save_count": counts.values["saves"],
        "track": get_path(item, "musicMeta", "musicName"),
        "author_id": get_path(item, "authorMeta", "id"),
        "pinned": bool(item.get("isPinned")),
        "source": "apify",
    }
    if slideshow:
        extra["images"] = [i for i in images if i]
    return PostSnapshot(
        platform="tiktok",
        platform_post_id=vid,
        url=url,
        content_type=content_type,
        caption=item.get("text") or None,
        published_at=published,
        duration_seconds=None if slideshow or not duration else duration,
        views=counts.values["views"],
        likes=counts.values["likes"],
        comments=counts.values["comments"],
        shares=counts.values["shares"],
        thumbnail_url=get_path(item, "videoMeta", "coverUrl")
        or get_path(item, "videoMeta", "originalCoverUrl"),
        approximations={k: v for k, v in counts.approximations.items() if k != "saves"},
        extra=extra,
        sound=sound_ref(
            platform_id=get_path(item, "musicMeta", "musicId"),
            title=get_path(item, "musicMeta", "musicName"),
            author=get_path(item, "musicMeta", "musicAuthor"),
            original=get_path(item, "musicMeta", "musicOriginal"),
            post_id=vid,
        ),
    )


def tiktok_groups(items: Iterable[Mapping[str, Any]]) -> list[Group]:
    items = list(items)
    ms = durations_in_ms(items)
    by_author: dict[str, Group] = {}
    for item in items:
        author = item.get("authorMeta")
        post = tiktok_post(item, duration_ms=ms)
        if not isinstance(author, Mapping) or post is None:
            continue
        profile = tiktok_profile(author)
        group = by_author.setdefault(profile.handle, Group(profile, []))
        group.posts.append(post)
    return list(by_author.values())


# ---- Instagram ---------------------------------------------------------------------------


def instagram_content_type(item: Mapping[str, Any]) -> str:
    kind = str(item.get("type") or "").lower()
    if kind == "sidecar" or item.get("productType") == "carousel_container":
        return "carousel"
    if kind == "video" or item.get("productType") == "clips":
        return "reel"
    return "image"


def instagram_post(item: Mapping[str, Any]) -> PostSnapshot | None:
    shortcode = item.get("shortCode")
    published = parse_rfc3339(item.get("timestamp"))
    if not isinstance(shortcode, str) or not shortcode or published is None:
        return None
    content_type = instagram_content_type(item)
    url = post_url_of("instagram", None, shortcode, content_type)
    if url is None:
        return None
    flags: dict[str, str] = {"shares": "hidden"}  # Instagram publishes no share count
    views = None
    other: dict[str, int] = {}
    if content_type == "reel":
        # One rule for every source: the plays score; an older kind scores only alone.
        plays, video_views = (nonnegative(item.get(k)) for k in ("videoPlayCount",
                                                                 "videoViewCount"))
        views = plays if plays is not None else video_views
        if plays is None and video_views is not None:
            flags["views"] = "video_views"
        elif plays is not None and video_views is not None:
            other["video_views"] = video_views
    likes = nonnegative(item.get("likesCount"))
    comments = nonnegative(item.get("commentsCount"))
    for name, value in (("views", views), ("likes", likes), ("comments", comments)):
        if value is None:
            flags[name] = "hidden"
    duration = to_float(item.get("videoDuration")) if content_type == "reel" else None
    if content_type == "reel" and duration is None:
        flags["duration_seconds"] = "hidden"
    children = [c for c in item.get("childPosts") or () if isinstance(c, Mapping)]
    images = [
        c.get("displayUrl") for c in children if c.get("displayUrl") and c.get("type") != "Video"
    ]
    if not images and content_type == "image":
        images = ([item.get("displayUrl")] if item.get("displayUrl")
                  else list(item.get("images") or ()))
    extra: dict[str, object] = {
        "media_id": str(item["id"]) if item.get("id") else None,
        "product_type": item.get("productType"),
        "pinned": bool(item.get("isPinned")),
        "images": [i for i in images if i],
        "source": "apify",
    }
    if content_type == "reel":
        extra["video_url"] = item.get("videoUrl")
    music = item.get("musicInfo")
    sound = None
    if isinstance(music, Mapping):
        sound = sound_ref(platform_id=music.get("audio_id"), title=music.get("song_name"),
                          author=music.get("artist_name"),
                          original=music.get("uses_original_audio"), post_id=shortcode)
    if other:
        extra["other_view_counts"] = other
    return PostSnapshot(
        platform="instagram",
        platform_post_id=shortcode,
        url=url,
        content_type=content_type,
        caption=item.get("caption") or None,
        published_at=published,
        duration_seconds=duration,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,
        thumbnail_url=item.get("displayUrl") or None,
        approximations=flags,
        extra=extra,
        sound=sound,
    )


def instagram_profile(item: Mapping[str, Any]) -> ProfileSnapshot:
    """From a `details` item (`username`, `followersCount`, …) or, lacking one, a post's
    owner fields (no follower count then)."""
    handle = str(item.get("username") or item.get("ownerUsername") or "").lower()
    details = "username" in item
    user_id = item.get("id") if details else item.get("ownerId")
    return ProfileSnapshot(
        platform="instagram",
        handle=handle,
        platform_user_id=str(user_id) if user_id else None,
        display_name=(item.get("fullName") if details else item.get("ownerFullName")) or None,
        bio=item.get("biography") or None,
        avatar_url=item.get("profilePicUrlHD") or item.get("profilePicUrl") or None,
        follower_count=nonnegative(item.get("followersCount")),
        url=profile_url_of("instagram", handle),
    )


def instagram_groups(items: Iterable[Mapping[str, Any]]) -> list[Group]:
    """Post items grouped by owner; `details` items bring their profile and latest posts."""
    by_owner: dict[str, Group] = {}
    for item in items:
        if "followersCount" in item or ("username" in item and "latestPosts" in item):
            profile = instagram_profile(item)
            group = by_owner.get(profile.handle)
            posts = group.posts if group else []
            by_owner[profile.handle] = Group(profile, posts)
            for latest in item.get("latestPosts") or ():
                if isinstance(latest, Mapping):
                    post = instagram_post(latest)
                    if post is not None:
                        posts.append(post)
            continue
        post = instagram_post(item)
        if post is None or not item.get("ownerUsername"):
            continue
        profile = instagram_profile(item)
        group = by_owner.setdefault(profile.handle, Group(profile, []))
        if group.profile.display_name is None and profile.display_name is not None:
            group = by_owner[profile.handle] = Group(profile, group.posts)  # a fuller copy
        group.posts.append(post)
    return list(by_owner.values())


# ---- YouTube -----------------------------------------------------------------------------


def hms_seconds(value: Any) -> float | None:
    """"00:10:24" or "3:05" → seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    match = _HMS.match(str(value or "").strip())
    if not match:
        return None
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    return float(hours * 3600 + minutes * 60 + seconds)


def youtube_handle(item: Mapping[str, Any]) -> str | None:
    for key in ("channelUrl", "inputChannelUrl"):
        match = _YT_HANDLE.search(str(item.get(key) or ""))
        if match:
            return unquote(match.group(1)).lower()
    username = item.get("channelUsername")
    return unquote(str(username)).removeprefix("@").lower() if username else None


def youtube_post(item: Mapping[str, Any]) -> PostSnapshot | None:
    vid = item.get("id")
    published = parse_rfc3339(item.get("date"))
    if not isinstance(vid, str) or not vid or published is None:
        return None
    kind = str(item.get("type") or "").lower()
    shown = str(item.get("url") or "")
    content_type = "short" if kind in ("short", "shorts") or "/shorts/" in shown else (
        "live" if kind in ("stream", "live") else "video"
    )
    url = post_url_of("youtube", None, vid, content_type)
    if url is None:
        return None
    views = nonnegative(item.get("viewCount"))
    likes = nonnegative(item.get("likes"))
    comments = nonnegative(item.get("commentsCount"))
    flags = {n: "hidden" for n, v in (("views", views), ("likes", likes), ("comments", comments))
             if v is None}
    flags["shares"] = "hidden"
    return PostSnapshot(
        platform="youtube",
        platform_post_id=vid,
        url=url,
        content_type=content_type,
        caption="\n\n".join(t for t in (item.get("title"), item.get("text")) if t) or None,
        published_at=published,
        duration_seconds=hms_seconds(item.get("duration")),
        views=views,
        likes=likes,
        comments=comments,
        shares=None,
        thumbnail_url=item.get("thumbnailUrl") or None,
        approximations=flags,
        extra={"channel_id": item.get("channelId"), "source": "apify"},
    )


def youtube_groups(items: Iterable[Mapping[str, Any]]) -> list[Group]:
    by_channel: dict[str, Group] = {}
    for item in items:
        post, handle = youtube_post(item), youtube_handle(item)
        if post is None or not handle:
            continue
        if handle not in by_channel:
            subscribers = nonnegative(item.get("numberOfSubscribers"))
            by_channel[handle] = Group(ProfileSnapshot(
                platform="youtube",
                handle=handle,
                platform_user_id=item.get("channelId") or None,
                display_name=item.get("channelName") or None,
                bio=item.get("channelDescription") or None,
                avatar_url=item.get("channelAvatarUrl") or None,
                follower_count=subscribers,
                # The channel page shows "1.23M subscribers": rounded above a thousand.
                follower_count_approximate=subscribers is not None and subscribers >= 1000
                and tiktok_counts.looks_display_rounded(subscribers),
                url=profile_url_of("youtube", handle),
            ), [])
        by_channel[handle].posts.append(post)
    return list(by_channel.values())


GROUPERS = {"tiktok": tiktok_groups, "instagram": instagram_groups, "youtube": youtube_groups}


def groups(platform: Platform, items: Sequence[Mapping[str, Any]]) -> list[Group]:
    return GROUPERS[platform](i for i in items if isinstance(i, Mapping))


def latest_time(items: Sequence[Mapping[str, Any]], *keys: str) -> datetime | None:
    """The latest of the items' capture times under `keys` (e.g. `scrapedAt`), if any."""
    times = [
        t for item in items if isinstance(item, Mapping)
        for t in (parse_rfc3339(item.get(k)) for k in keys) if t is not None
    ]
    return max(times) if times else None
