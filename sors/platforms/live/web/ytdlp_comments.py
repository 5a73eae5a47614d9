"""yt-dlp's `comments` (written into `.info.json` with `--write-comments`) → comment
snapshots. Pure.

Each entry has `id`, `text`, `author` ("@handle" on YouTube), `like_count`, `timestamp`
and `parent` ("root" for a top-level comment, else the id of the comment it answers);
replies are counted from the entries themselves.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from sors.platforms.base import CommentSnapshot, Platform
from sors.platforms.live.common import from_timestamp, to_int

_AT = re.compile(r"/@([^/?#]+)")


def _handle(comment: Mapping[str, Any]) -> str | None:
    """"@handle" as YouTube's `author`, else the handle in `author_url` (TikTok's `author`
    is the commenter's display name, which is not kept)."""
    name = str(comment.get("author") or "").strip()
    if name.startswith("@") and len(name) > 1:
        return name[1:].lower()
    found = _AT.search(str(comment.get("author_url") or ""))
    return found.group(1).lower() if found else None


def ytdlp_comments(info: Mapping[str, Any], platform: Platform) -> list[CommentSnapshot]:
    """The comments of one video's info dict (none when it holds none)."""
    video = info.get("id")
    entries = [c for c in info.get("comments") or () if isinstance(c, Mapping)]
    if not isinstance(video, str) or not entries:
        return []
    children = Counter(str(c.get("parent")) for c in entries if c.get("parent") != "root")
    out = []
    for c in entries:
        cid, text = c.get("id"), c.get("text")
        if not cid or not isinstance(text, str):
            continue
        parent = c.get("parent")
        likes = to_int(c.get("like_count"))
        out.append(CommentSnapshot(
            platform=platform, platform_post_id=video, platform_comment_id=str(cid), text=text,
            author_handle=_handle(c),
            likes=likes if likes is not None and likes >= 0 else None,
            replies=children.get(str(cid), 0),
            published_at=from_timestamp(c.get("timestamp")),
            parent_id=str(parent) if parent and parent != "root" else None,
        ))
    return out
