"""YouTube through yt-dlp, for instances without a Data API key: channel tabs and audio.

A crawl lists the videos, shorts and streams tabs flat (dates approximate, views rounded),
then asks for each listed video's full info; when YouTube refuses the details (a bot
check, members-only), the listing's data stands in. The pure mapping of yt-dlp's info
dicts is in `youtube_map`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from sors.platforms import urls
from sors.platforms.base import (
    Blocked,
    CrawlSnapshot,
    MediaFile,
    PostNotFound,
    PostSnapshot,
    ProfileNotFound,
    ProfileSnapshot,
)
from sors.platforms.live import net
from sors.platforms.live.api.mapping import VIDEO_ID_RE
from sors.platforms.live.common import Subject, merged_listing_is_complete, to_float
from sors.platforms.live.pacing import Pacer
from sors.platforms.live.web.youtube_map import map_ytdlp_channel, map_ytdlp_error, map_ytdlp_video
from sors.platforms.live.web.ytdlp import YtDlp, YtDlpFailure, downloaded_files

# Metadata only: dates for flat tab entries ("3 days ago"), and no stream manifests.
_METADATA_OPTIONS = {
    "extractor_args": {
        "youtubetab": {"approximate_date": [""]},
        "youtube": {"skip": ["hls", "dash", "translated_subs"]},
    }
}


class YouTubeYtDlpFetcher:
    """A channel crawl from its tabs (at most `tab_posts[tab]` entries each), and audio."""

    def __init__(self, ytdlp: YtDlp, pacer: Pacer, *, tab_posts: Mapping[str, int]) -> None:
        self._ytdlp = ytdlp
        self._pacer = pacer
        self._tab_posts = tab_posts

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        profile: ProfileSnapshot | None = None
        tabs: list[tuple[list[PostSnapshot], bool]] = []
        posts: dict[str, PostSnapshot] = {}
        detail_blocked = False
        for tab, limit in self._tab_posts.items():
            if limit <= 0:
                continue
            try:
                channel = urls.profile_url("youtube", handle)
                listing = await self._extract(
                    f"{channel}/{tab}", "profile", flat=True, limit=limit
                )
            except ProfileNotFound:
                if tab == "videos":
                    # No videos tab can also mean no such channel: confirm with the home tab.
                    listing = await self._extract(
                        f"{channel}/featured", "profile", flat=True, limit=0
                    )
                    profile = profile or map_ytdlp_channel(listing, handle)
                continue
            profile = profile or map_ytdlp_channel(listing, handle)
            entries = [e for e in listing.get("entries") or () if isinstance(e, Mapping)]
            tab_posts: list[PostSnapshot] = []
            for entry in entries:
                if entry.get("live_status") == "is_upcoming":
                    continue
                post, detail_blocked = await self._video_details(entry, tab, detail_blocked)
                if post is not None and post.platform_post_id not in posts:
                    posts[post.platform_post_id] = post
                    tab_posts.append(post)
            tabs.append((tab_posts, len(entries) >= limit))
        if profile is None:
            raise ProfileNotFound("YouTube has no channel with this handle")
        ordered = sorted(posts.values(), key=lambda p: p.published_at, reverse=True)
        return CrawlSnapshot(
            profile=profile,
            posts=ordered,
            fetched_at=now,
            listing_complete=merged_listing_is_complete(tabs),
        )

    async def _video_details(
        self, entry: Mapping[str, Any], tab: str, blocked: bool
    ) -> tuple[PostSnapshot | None, bool]:
        """The full info of one listed video; the flat entry when YouTube will not say more."""
        vid = entry.get("id")
        if blocked or not isinstance(vid, str) or not VIDEO_ID_RE.match(vid):
            return map_ytdlp_video(entry, tab=tab), blocked
        try:
            info = await self._extract(f"https://www.youtube.com/watch?v={vid}", "post")
        except PostNotFound:
            return map_ytdlp_video(entry, tab=tab), blocked  # members-only, removed meanwhile…
        except Blocked:
            # A bot check answers every further video the same way: stop asking this crawl.
            return map_ytdlp_video(entry, tab=tab), True
        return map_ytdlp_video(info, tab=tab) or map_ytdlp_video(entry, tab=tab), blocked

    async def _extract(self, url: str, subject: Subject, **kwargs: Any) -> dict[str, Any]:
        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.extract(url, options=_METADATA_OPTIONS, **kwargs)
            except YtDlpFailure as f:
                raise map_ytdlp_error(f.info, subject=subject) from f

        return await self._pacer.call(call)

    async def download_audio(self, vid: str, dest_dir: Path, max_bytes: int) -> list[MediaFile]:
        """The video's audio (m4a up to 160 kbit/s preferred), within `max_bytes`."""

        async def call() -> dict[str, Any]:
            try:
                return await self._ytdlp.download(
                    f"https://www.youtube.com/watch?v={vid}",
                    dest_dir,
                    fmt="bestaudio[ext=m4a][abr<=160]/bestaudio[abr<=160]/bestaudio/worst",
                    max_filesize=max_bytes,
                )
            except YtDlpFailure as f:
                raise map_ytdlp_error(f.info, subject="post") from f

        info = await self._pacer.call(call)
        return [
            MediaFile(
                kind="audio",
                path=path,
                content_type=net.content_type_for(path),
                duration_seconds=to_float(info.get("duration")),
            )
            for path in downloaded_files(info)
        ]
