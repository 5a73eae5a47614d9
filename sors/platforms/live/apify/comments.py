"""Apify comment items → comment snapshots: `clockworks/tiktok-comments-scraper`,
`apify/instagram-comment-scraper`, and the `latestComments` (with their `replies`) and
`firstComment` an `apify/instagram-scraper` post item carries. Pure: the Apify source and
`sors import` both use them.

Of a commenter only the public handle is kept (`uniqueId`, `ownerUsername`): no name,
picture, platform user id or verification flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sors.platforms.base import CommentSnapshot
from sors.platforms.live.common import from_timestamp, parse_rfc3339, to_int

_TIKTOK_VIDEO = re.compile(r"/(?:video|photo)/(\d{15,21})")
_INSTAGRAM_POST = re.compile(r"instagram\.com/(?:[^/]+/)?(?:p|reel|reels|tv)/([A-Za-z0-9_-]+)")


def _count(value: Any) -> int | None:
    n = to_int(value)
    return n if n is not None and n >= 0 else None


def _handle(value: Any) -> str | None:
    name = str(value or "").strip().removeprefix("@").lower()
    return name or None


def tiktok_video_id(url: Any) -> str | None:
    match = _TIKTOK_VIDEO.search(str(url or ""))
    return match.group(1) if match else None


def instagram_shortcode(url: Any) -> str | None:
    match = _INSTAGRAM_POST.search(str(url or ""))
    return match.group(1) if match else None


def is_tiktok_comment(item: Mapping[str, Any]) -> bool:
    return "cid" in item and ("videoWebUrl" in item or "submittedVideoUrl" in item)


def is_instagram_comment(item: Mapping[str, Any]) -> bool:
    return "ownerUsername" in item and "postUrl" in item and "shortCode" not in item


def tiktok_comment(item: Mapping[str, Any]) -> CommentSnapshot | None:
    """A `clockworks/tiktok-comments-scraper` item (a comment or, with `repliesToId`, a
    reply); None when it names no comment id, video or text."""
    cid = str(item.get("cid") or "")
    video = tiktok_video_id(item.get("videoWebUrl")) or tiktok_video_id(
        item.get("submittedVideoUrl"))
    text = item.get("text")
    if not cid or video is None or not isinstance(text, str):
        return None
    parent = item.get("repliesToId")
    return CommentSnapshot(
        platform="tiktok",
        platform_post_id=video,
        platform_comment_id=cid,
        text=text,
        author_handle=_handle(item.get("uniqueId")),
        likes=_count(item.get("diggCount")),
        replies=_count(item.get("replyCommentTotal")),
        published_at=parse_rfc3339(item.get("createTimeISO")) or from_timestamp(
            item.get("createTime")),
        parent_id=str(parent) if parent else None,
        language=str(item["textLanguage"]) if item.get("textLanguage") else None,
    )


def _instagram_one(
    item: Mapping[str, Any], shortcode: str, parent: str | None
) -> Iterator[CommentSnapshot]:
    cid, text = str(item.get("id") or ""), item.get("text")
    if not cid or not isinstance(text, str):
        return
    replies = [r for r in item.get("replies") or () if isinstance(r, Mapping)]
    yield CommentSnapshot(
        platform="instagram",
        platform_post_id=shortcode,
        platform_comment_id=cid,
        text=text,
        author_handle=_handle(item.get("ownerUsername")),
        likes=_count(item.get("likesCount")),
        replies=_count(item.get("repliesCount")),
        published_at=parse_rfc3339(item.get("timestamp")),
        parent_id=parent,
    )
    for reply in replies:
        yield from _instagram_one(reply, shortcode, cid)


def instagram_comments(item: Mapping[str, Any]) -> list[CommentSnapshot]:
    """An `apify/instagram-comment-scraper` item: the comment and the replies it lists."""
    shortcode = instagram_shortcode(item.get("postUrl")) or instagram_shortcode(
        item.get("commentUrl"))
    return list(_instagram_one(item, shortcode, None)) if shortcode else []


def instagram_post_comments(post: Mapping[str, Any]) -> list[CommentSnapshot]:
    """The comments an `apify/instagram-scraper` post item carries: `latestComments` with
    their nested `replies`; `firstComment` when it is not among them (it has no id of its
    own, so it is keyed by the post: `<shortCode>:first`)."""
    shortcode = post.get("shortCode")
    if not isinstance(shortcode, str) or not shortcode:
        return []
    out: list[CommentSnapshot] = []
    for comment in post.get("latestComments") or ():
        if isinstance(comment, Mapping):
            out.extend(_instagram_one(comment, shortcode, None))
    first = post.get("firstComment")
    if isinstance(first, str) and first.strip() and all(c.text != first for c in out):
        out.append(CommentSnapshot(
            platform="instagram", platform_post_id=shortcode,
            platform_comment_id=f"{shortcode}:first", text=first, author_handle=None,
            likes=None, replies=None, published_at=None,
        ))
    return out


def comments_of(items: Iterable[Mapping[str, Any]]) -> list[CommentSnapshot]:
    """Every comment in a comment actor's items (TikTok or Instagram, told per item); items
    that are no comment (an actor's error item) are left out."""
    out: list[CommentSnapshot] = []
    for item in items:
        if is_tiktok_comment(item):
            one = tiktok_comment(item)
            if one is not None:
                out.append(one)
        elif is_instagram_comment(item):
            out.extend(instagram_comments(item))
    return out
