"""YouTube through the Data API v3: the HTTP client and a channel crawl built on it.

A crawl costs a handful of quota units: channels.list for the channel, playlistItems.list
for its uploads (and its Shorts playlist, which tells Shorts from videos), then videos.list
in batches of 50 for the counts. The pure mapping of the answers is in `youtube_map`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import httpx

from sors.platforms.base import CrawlSnapshot, PlatformError, ProfileNotFound, TransientError
from sors.platforms.live.api.mapping import (
    api_channel_item,
    map_api_channel,
    map_api_error,
    map_api_videos,
    playlist_oldest_published,
    playlist_video_ids,
    shorts_playlist_id,
    uploads_playlist_id,
)
from sors.platforms.live.common import Subject, parse_retry_after
from sors.platforms.live.pacing import PacerRegistry

API_BASE = "https://www.googleapis.com/youtube/v3"


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


class YouTubeApiFetcher:
    """One channel's profile and newest uploads (at most `max_posts`) through the Data API."""

    def __init__(self, api: YouTubeDataAPI, *, max_posts: int) -> None:
        self._api = api
        self._max_posts = max_posts

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        api = self._api
        channels = await api.get(
            "channels",
            {"part": "snippet,statistics,contentDetails", "forHandle": f"@{handle}"},
            subject="profile",
            now=now,
        )
        item = api_channel_item(channels)
        profile = map_api_channel(item, handle)
        ids = await self._playlist(item, now)
        shorts_ids, shorts_since = await self._shorts(item.get("id"), now)
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

    async def _playlist(self, item: Mapping[str, Any], now: datetime) -> list[str]:
        api = self._api
        uploads = uploads_playlist_id(item)
        limit = self._max_posts
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

    async def _shorts(
        self, channel_id: str | None, now: datetime
    ) -> tuple[set[str] | None, datetime | None]:
        playlist = shorts_playlist_id(channel_id)
        if playlist is None:
            return None, None
        try:
            page = await self._api.get(
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
