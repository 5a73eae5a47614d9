"""TikTok's pure mappers: the profile page's `webapp.user-detail` object and yt-dlp's info
dicts → snapshots, and yt-dlp's failures → typed failures.

Counts go through `tiktok_counts`, which prefers the exact `statsV2` strings to the rounded
`stats` numbers. Nothing here makes a request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    PlatformError,
    PostNotFound,
    PostSnapshot,
    ProfileNotFound,
    ProfilePrivate,
    ProfileSnapshot,
    TransientError,
)
from sors.platforms.live.common import (
    FailureInfo,
    Subject,
    best_thumbnail,
    classify_failure,
    failure_from_warnings,
    from_timestamp,
    get_path,
    listing_is_complete,
    post_url_of,
    profile_url_of,
    to_float,
    to_int,
)
from sors.platforms.live.web import tiktok_counts
from sors.platforms.sounds import sound_ref

POST_ID_RE = re.compile(r"^\d{5,25}$")
# webapp.user-detail statusCode values: 10202 / 10221 no such user (or banned),
# 10223 banned, 10222 private account.
NOT_FOUND_CODES = frozenset({10202, 10221, 10223})
PRIVATE_CODE = 10222
_UNIVERSAL_RE = re.compile(
    r'<script[^>]+\bid="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>(.*?)</script>', re.S
)
_IMAGE_EXTS = {"jpg", "jpeg", "png", "webp", "heic", "avif"}


# ---- the embedded page JSON ------------------------------------------------------------


def extract_universal_data(html: str) -> dict[str, Any]:
    """The `__DEFAULT_SCOPE__` of the page's `__UNIVERSAL_DATA_FOR_REHYDRATION__` script."""
    m = _UNIVERSAL_RE.search(html)
    if not m:
        return {}
    try:
        data = json.loads(m.group(1))
    except ValueError:
        return {}
    scope = data.get("__DEFAULT_SCOPE__") if isinstance(data, dict) else None
    return scope if isinstance(scope, dict) else {}


def user_detail_status(detail: Mapping[str, Any] | None) -> int | None:
    return to_int(detail.get("statusCode")) if isinstance(detail, Mapping) else None


def map_user_detail(detail: Mapping[str, Any], handle: str) -> ProfileSnapshot:
    """`webapp.user-detail` → profile; missing or banned accounts → ProfileNotFound, private
    ones → ProfilePrivate."""
    status = user_detail_status(detail) or 0
    user = get_path(detail, "userInfo", "user")
    if status in NOT_FOUND_CODES or not isinstance(user, Mapping) or not user.get("uniqueId"):
        raise ProfileNotFound("TikTok has no such account")
    if status == PRIVATE_CODE or user.get("privateAccount") is True:
        raise ProfilePrivate("this TikTok account is private")
    # statsV2 carries the same numbers as strings: exact, where `stats` rounds (427682 vs
    # 427700) and could overflow 32 bits.
    counts = tiktok_counts.reconcile(
        {"followers": "followerCount"},
        get_path(detail, "userInfo", "stats"),
        get_path(detail, "userInfo", "statsV2"),
    )
    followers = counts.values["followers"]
    return ProfileSnapshot(
        platform="tiktok",
        handle=handle,
        platform_user_id=str(user["id"]) if user.get("id") else None,
        display_name=user.get("nickname") or None,
        bio=user.get("signature") or None,
        avatar_url=user.get("avatarLarger") or user.get("avatarMedium") or user.get("avatarThumb"),
        follower_count=followers,
        follower_count_approximate=counts.approximations.get("followers") == "rounded",
        url=profile_url_of("tiktok", handle),
    )


def profile_from_listing(playlist: Mapping[str, Any], handle: str) -> ProfileSnapshot:
    """When the page JSON was not seen: what the listed items say about their author."""
    entries = [e for e in playlist.get("entries") or () if isinstance(e, Mapping)]
    first = entries[0] if entries else {}
    return ProfileSnapshot(
        platform="tiktok",
        handle=handle,
        platform_user_id=first.get("uploader_id"),
        display_name=first.get("channel"),
        bio=None,
        avatar_url=None,
        follower_count=None,
        url=profile_url_of("tiktok", handle),
    )


# ---- posts -----------------------------------------------------------------------------


def slideshow_images(info: Mapping[str, Any]) -> list[str] | None:
    """Image URLs of a slideshow (`imagePost.images[].imageURL.urlList[0]`), else None."""
    image_post = info.get("tiktok_image_post")
    if not isinstance(image_post, Mapping):
        return None
    urls = [get_path(img, "imageURL", "urlList", 0) for img in image_post.get("images") or ()]
    return [u for u in urls if isinstance(u, str)]


def _formats_without_video(info: Mapping[str, Any]) -> bool:
    """yt-dlp lists a slideshow with its music only (or with images as formats)."""
    formats = [f for f in info.get("formats") or () if isinstance(f, Mapping)]
    if not formats:
        return False
    return all(
        f.get("vcodec") == "none" or str(f.get("ext") or "").lower() in _IMAGE_EXTS for f in formats
    )


def map_tiktok_post(info: Mapping[str, Any], *, handle: str) -> PostSnapshot | None:
    """One yt-dlp TikTok info dict (a listing entry or a full extraction)."""
    vid = str(info.get("id") or "")
    published = from_timestamp(info.get("timestamp"))
    if not POST_ID_RE.match(vid) or published is None:
        return None
    images = slideshow_images(info)
    slideshow = bool(images) or _formats_without_video(info)
    content_type = "slideshow" if slideshow else "video"
    url = post_url_of("tiktok", handle, vid, content_type)
    if url is None:
        return None
    counts = tiktok_counts.reconcile(
        tiktok_counts.POST_COUNTS,
        info.get("tiktok_stats"),
        info.get("tiktok_stats_v2"),
        fallback={
            "views": info.get("view_count"),
            "likes": info.get("like_count"),
            "comments": info.get("comment_count"),
            "shares": info.get("repost_count"),
            "saves": info.get("save_count"),
        },
    )
    views, likes = counts.values["views"], counts.values["likes"]
    comments, shares = counts.values["comments"], counts.values["shares"]
    cover = get_path(info, "tiktok_image_post", "cover", "imageURL", "urlList", 0)
    thumbnail = (cover if slideshow else None) or info.get("thumbnail")
    thumbnail = (
        thumbnail or best_thumbnail(info.get("thumbnails")) or (images[0] if images else None)
    )
    duration = to_float(info.get("duration"))
    extra: dict[str, object] = {
        "save_count": counts.values["saves"],
        "track": info.get("track"),
        "author_id": info.get("uploader_id"),
        "sec_uid": info.get("channel_id"),
        "pinned": bool(info.get("tiktok_pinned")),
    }
    if slideshow:
        extra["images"] = images or []
    return PostSnapshot(
        platform="tiktok",
        platform_post_id=vid,
        url=url,
        content_type=content_type,
        caption=info.get("description") or None,
        published_at=published,
        # A slideshow's `duration` is its music's, often the whole song: not the post's.
        duration_seconds=None if slideshow or not duration else duration,
        views=views,
        likes=likes,
        comments=comments,
        shares=shares,
        thumbnail_url=thumbnail,
        approximations={k: v for k, v in counts.approximations.items() if k != "saves"},
        extra=extra,
        sound=sound_ref(platform_id=info.get("music_id"), title=info.get("track"),
                        author=_artist(info), original=None, post_id=vid),
    )


def _artist(info: Mapping[str, Any]) -> str | None:
    """yt-dlp's `artists` (a list; `artist`, a string, in older versions)."""
    artists = info.get("artists")
    if isinstance(artists, list) and artists:
        return ", ".join(str(a) for a in artists if a) or None
    artist = info.get("artist")
    return artist if isinstance(artist, str) and artist else None


def map_tiktok_crawl(
    playlist: Mapping[str, Any],
    user_detail: Mapping[str, Any] | None,
    *,
    handle: str,
    now: datetime,
) -> CrawlSnapshot:
    profile = (
        map_user_detail(user_detail, handle)
        if user_detail is not None
        else profile_from_listing(playlist, handle)
    )
    posts: list[PostSnapshot] = []
    seen: set[str] = set()
    for entry in playlist.get("entries") or ():
        post = map_tiktok_post(entry, handle=handle) if isinstance(entry, Mapping) else None
        if post is not None and post.platform_post_id not in seen:
            seen.add(post.platform_post_id)
            posts.append(post)
    return CrawlSnapshot(
        profile=profile, posts=posts, fetched_at=now, listing_complete=listing_is_complete(posts)
    )


def map_tiktok_error(
    info: FailureInfo, *, subject: Subject, user_status: int | None = None
) -> PlatformError:
    text = info.message.lower()
    if subject == "profile" and user_status == PRIVATE_CODE:
        return ProfilePrivate(info.message)
    if subject == "profile" and user_status in NOT_FOUND_CODES:
        return ProfileNotFound(info.message)
    if "keeps sending the same page" in text:
        return TransientError(info.message)
    if "secondary user id" in text or "universal data for rehydration" in text:
        if subject == "profile" and user_status is not None:
            return ProfileNotFound(info.message)
        # yt-dlp fetches the profile page leniently: a refusal or a network failure there
        # only shows up as a warning before this vaguer error.
        earlier = failure_from_warnings(info, subject=subject)
        if earlier is not None:
            return earlier
        # The page came, without its JSON: TikTok served its bot challenge instead.
        return Blocked(info.message)
    if "status code 10204" in text:
        return Blocked(info.message)
    if "video not available, status code" in text:
        return PostNotFound(info.message)
    return classify_failure(info, subject=subject)
