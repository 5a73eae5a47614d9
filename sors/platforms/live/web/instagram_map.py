"""Instagram's pure mappers: instaloader's JSON structures → snapshots, and instaloader's and
yt-dlp's failures → typed failures.

Mappers read instaloader's JSON structures (`instaloader.get_json_structure`: `{"node": …,
"instaloader": {"node_type": …}}`, the format of its `.json` exports) or bare nodes, never
instaloader's properties, which may fire extra requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypedDict

from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    PlatformError,
    PostNotFound,
    PostSnapshot,
    ProfilePrivate,
    ProfileSnapshot,
    RateLimited,
    SoundRef,
    TransientError,
    UnsupportedMedia,
)
from sors.platforms.live.common import (
    FailureInfo,
    Subject,
    classify_failure,
    from_timestamp,
    get_path,
    listing_is_complete,
    not_found,
    post_url_of,
    profile_url_of,
    to_float,
    to_int,
)
from sors.platforms.sounds import sound_ref


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
        raise ProfilePrivate("this Instagram account is private")
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
        url=profile_url_of("instagram", handle),
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


class Slide(TypedDict):
    """One slide of a post as its listing shows it (CDN links that expire)."""

    url: str | None
    is_video: bool
    video_url: str | None


def carousel_slides(node: Mapping[str, Any]) -> list[Slide]:
    slides: list[Slide] = []
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
    url = post_url_of("instagram", None, shortcode, content_type)
    if url is None:
        return None
    counts_hidden = node.get("like_and_view_counts_disabled") is True
    views = None
    # Plays are what the app shows as views; listing nodes of the older web API carry only
    # `video_view_count`, a different (smaller) count, flagged as such.
    plays = _first_int(node.get("video_play_count"), node.get("play_count"))
    views_kind = None
    other: dict[str, int] = {}
    if content_type == "reel" and not counts_hidden:
        video_views = _first_int(node.get("video_view_count"), node.get("view_count"))
        views = plays if plays is not None else video_views
        if plays is None:
            views_kind = "video_views" if views is not None else None
        elif video_views is not None:
            other["video_views"] = video_views  # both given: plays score, both are kept
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
    slides: list[Slide] = (
        carousel_slides(node)
        if content_type == "carousel"
        else [
            {"url": display, "is_video": content_type == "reel", "video_url": node.get("video_url")}
        ]
    )
    extra: dict[str, object] = {
        "media_id": str(node["id"]) if node.get("id") is not None else None,
        "product_type": node.get("product_type"),
        "pinned": bool(node.get("pinned_for_users") or node.get("timeline_pinned_user_ids")),
        "images": [s["url"] for s in slides if not s["is_video"] and s["url"]],
        "slides": slides,
    }
    if content_type == "reel":
        extra["video_url"] = node.get("video_url")
    if other:
        extra["other_view_counts"] = other
    duration = to_float(node.get("video_duration")) if content_type == "reel" else None
    return PostSnapshot(
        platform="instagram",
        platform_post_id=shortcode,
        url=url,
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
        sound=_sound(node, shortcode),
    )


def _sound(node: Mapping[str, Any], shortcode: str) -> SoundRef | None:
    """A reel's audio: `clips_music_attribution_info` in the web API's nodes (instaloader's
    and the mobile API's `clips_metadata.music_info` carry the same four fields)."""
    music = node.get("clips_music_attribution_info")
    if not isinstance(music, Mapping):
        music = get_path(node, "clips_metadata", "music_info", "music_asset_info")
    if not isinstance(music, Mapping):
        return None
    return sound_ref(
        platform_id=music.get("audio_id") or music.get("audio_cluster_id"),
        title=music.get("song_name") or music.get("title"),
        author=music.get("artist_name") or music.get("display_artist"),
        original=music.get("uses_original_audio"), post_id=shortcode,
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
