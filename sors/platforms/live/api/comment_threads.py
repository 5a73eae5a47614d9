"""A video's comments through the Data API: `commentThreads.list` pages of up to 100
threads (1 quota unit each), most relevant first, with the replies the API includes."""

from __future__ import annotations

from datetime import datetime

from sors.platforms.base import Blocked, CommentSnapshot, CommentsSnapshot, CommentsUnsupported
from sors.platforms.live.api.client import YouTubeDataAPI
from sors.platforms.live.api.comments import thread_comments

PAGE = 100


async def fetch_comment_threads(
    api: YouTubeDataAPI, video_id: str, *, limit: int, now: datetime
) -> CommentsSnapshot:
    found: list[CommentSnapshot] = []
    token: str | None = None
    while len(found) < limit:
        try:
            page = await api.get("commentThreads", {
                "part": "snippet,replies", "videoId": video_id, "maxResults": PAGE,
                "order": "relevance", "textFormat": "plainText", "pageToken": token,
            }, subject="post", now=now)
        except Blocked as exc:
            if "disabled comments" in str(exc) or "commentsDisabled" in str(exc):
                raise CommentsUnsupported(f"Comments are turned off on video {video_id}."
                                          ) from exc
            raise
        found.extend(thread_comments(page))
        token = page.get("nextPageToken")
        if not token or not page.get("items"):
            break
    return CommentsSnapshot(comments=found[:limit], fetched_at=now, source="api")
