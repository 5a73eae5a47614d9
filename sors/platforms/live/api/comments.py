"""YouTube Data API `commentThreads.list` answers → comment snapshots (1 quota unit a page
of up to 100 threads). Pure.

A thread is its top-level comment and, when the request asked for `part=replies`, some of
its replies. `textOriginal` is the text as written (`textDisplay` is HTML). Of the author
only a handle is kept: `authorDisplayName` since YouTube moved to handles (2023-24) is the
"@handle"; an older answer's display name is a person's name, which is not kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sors.platforms.base import CommentSnapshot
from sors.platforms.live.common import get_path, parse_rfc3339, to_int


def _handle(snippet: Mapping[str, Any]) -> str | None:
    name = str(snippet.get("authorDisplayName") or "")
    return name[1:].lower() or None if name.startswith("@") else None


def _comment(
    item: Mapping[str, Any], replies: int | None, parent: str | None
) -> CommentSnapshot | None:
    snippet = item.get("snippet") or {}
    cid, video = item.get("id"), snippet.get("videoId")
    text = snippet.get("textOriginal")
    if text is None:
        text = snippet.get("textDisplay")
    if not cid or not isinstance(text, str) or not video:
        return None
    likes = to_int(snippet.get("likeCount"))
    return CommentSnapshot(
        platform="youtube",
        platform_post_id=str(video),
        platform_comment_id=str(cid),
        text=text,
        author_handle=_handle(snippet),
        likes=likes if likes is not None and likes >= 0 else None,
        replies=replies,
        published_at=parse_rfc3339(snippet.get("publishedAt")),
        parent_id=parent or (str(snippet["parentId"]) if snippet.get("parentId") else None),
    )


def _thread(thread: Mapping[str, Any]) -> Iterator[CommentSnapshot]:
    top = get_path(thread, "snippet", "topLevelComment") or {}
    replies = to_int(get_path(thread, "snippet", "totalReplyCount"))
    first = _comment(top, replies, None)
    if first is None:
        return
    yield first
    for reply in get_path(thread, "replies", "comments") or ():
        if isinstance(reply, Mapping):
            one = _comment(reply, None, first.platform_comment_id)
            if one is not None:
                yield one


def thread_comments(answer: Mapping[str, Any]) -> list[CommentSnapshot]:
    """Every comment of a `youtube#commentThreadListResponse` page."""
    return [c for t in answer.get("items") or () if isinstance(t, Mapping) for c in _thread(t)]
