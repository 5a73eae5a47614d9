"""The simulated world behind the platform adapter interface.

Media are made on demand by sim/render.py from the post's script or slide texts. The world
is the source of truth: when the caller knows the owner's handle, the post is re-derived
(so a deleted or not-yet-published post has no media, as on a real platform); only without
a handle do we trust the texts the caller kept in `PostRef.extra`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sors.platforms.base import (
    CommentsSnapshot,
    CrawlSnapshot,
    MediaFile,
    Platform,
    PostNotFound,
    PostRef,
    UnsupportedMedia,
)
from sors.platforms.sim.posts import VIDEO_TYPES
from sors.platforms.sim.world import SimWorld

# Portrait for short-form, landscape for YouTube's long-form and streams.
_VIDEO_SIZE = {"landscape": (640, 360), "portrait": (360, 640)}
_SLIDE_SIZE = {"slideshow": (720, 960), "carousel": (720, 900), "image": (720, 720)}


class SimAdapter:
    """PlatformAdapter over a SimWorld."""

    def __init__(self, world: SimWorld | None = None, *, latency: float = 0.0) -> None:
        self.world = world if world is not None else SimWorld()
        self.latency = latency  # seconds a real platform would take to answer

    async def fetch_profile(
        self, platform: Platform, handle: str, *, now: datetime
    ) -> CrawlSnapshot:
        if self.latency:
            await asyncio.sleep(self.latency)
        # A crawl derives ~60 posts in a few milliseconds: not worth a thread hop.
        return self.world.crawl(platform, handle, now)

    async def discover(
        self, platform: Platform, niche: str | None, *, since: datetime, now: datetime,
        limit: int,
    ) -> list[str]:
        from sors.platforms.sim.discovery import discover

        return discover(self.world, platform, niche, since=since, now=now, limit=limit)

    async def fetch_comments(
        self, post: PostRef, *, limit: int, now: datetime
    ) -> CommentsSnapshot:
        if not post.handle:
            raise PostNotFound("A simulated post is found through its owner's handle.")
        hint = post.extra.get("sim_slot")
        found = self.world.comments(post.platform, post.handle, post.platform_post_id,
                                    now=now, limit=limit,
                                    slot_hint=hint if isinstance(hint, int) else None)
        return CommentsSnapshot(comments=found, fetched_at=now, source="sim")

    async def fetch_media(self, post: PostRef, dest_dir: Path, *, now: datetime) -> list[MediaFile]:
        content_type, extra = self._post_content(post, now)
        stem = f"{post.platform}-{post.platform_post_id}"
        # Rendering runs ffmpeg and a speech synthesizer for seconds: off the event loop.
        return await asyncio.to_thread(_render, post.platform, content_type, extra, dest_dir, stem)

    def _post_content(self, post: PostRef, now: datetime) -> tuple[str, Mapping[str, Any]]:
        if post.handle:
            hint = post.extra.get("sim_slot")
            snap = self.world.find_post(
                post.platform,
                post.handle,
                post.platform_post_id,
                now=now,
                slot_hint=hint if isinstance(hint, int) else None,
            )
            return snap.content_type, snap.extra
        if post.extra.get("script") or post.extra.get("slides"):
            return post.content_type, post.extra
        # YouTube URLs carry no handle; without one (or the texts) the post cannot be found.
        raise PostNotFound("A simulated post is found through its owner's handle.")


def _render(
    platform: str, content_type: str, extra: Mapping[str, Any], dest_dir: Path, stem: str
) -> list[MediaFile]:
    from sors.platforms.sim.render import render_slides, render_video

    if content_type not in VIDEO_TYPES:
        texts = [str(s) for s in extra.get("slides") or ()]
        if not texts:
            raise UnsupportedMedia("This simulated post has no slides to render.")
        width, height = _SLIDE_SIZE.get(content_type, (720, 720))
        out_dir = dest_dir / stem
        out_dir.mkdir(parents=True, exist_ok=True)
        return render_slides(texts, out_dir, width=width, height=height)

    scenes = [str(s) for s in extra.get("script") or ()]
    if not scenes:
        raise UnsupportedMedia("This simulated post has no script to render.")
    dest_dir.mkdir(parents=True, exist_ok=True)
    landscape = platform == "youtube" and content_type in ("video", "live")
    width, height = _VIDEO_SIZE["landscape" if landscape else "portrait"]
    # Streams have no seconds_per_scene: their media is a voice-paced stand-in, not an hour
    # of video. Everything else lasts exactly its duration_seconds.
    seconds = extra.get("seconds_per_scene")
    video = render_video(
        scenes,
        dest_dir / f"{stem}.mp4",
        seconds_per_scene=float(seconds) if seconds else None,
        width=width,
        height=height,
    )
    if platform != "youtube":
        return [video]
    # YouTube callers get the thumbnail; the video stays available for transcription.
    title = str(extra.get("topic") or scenes[0])
    thumb_dir = dest_dir / f"{stem}-thumb"
    thumb_dir.mkdir(parents=True, exist_ok=True)
    thumbs = render_slides([title[:1].upper() + title[1:]], thumb_dir, width=640, height=360)
    return [replace(thumbs[0], kind="thumbnail", position=0), video]



def thumbnail_jpeg(platform: str, content_type: str, extra: Mapping[str, Any]) -> bytes:
    """The post's thumbnail as the simulated platform would serve it: the image `_render`
    hands YouTube callers (the title card), else the first frame of the video (its first
    scene's card) or the first slide, at the size its media are rendered."""
    from sors.platforms.sim.render import card_jpeg

    scenes = [str(s) for s in extra.get("script") or ()]
    slides = [str(s) for s in extra.get("slides") or ()]
    if content_type in VIDEO_TYPES and scenes:
        if platform == "youtube":
            title = str(extra.get("topic") or scenes[0])
            return card_jpeg(title[:1].upper() + title[1:], 640, 360)
        return card_jpeg(scenes[0], *_VIDEO_SIZE["portrait"])  # short-form video: portrait
    if slides:
        return card_jpeg(slides[0], *_SLIDE_SIZE.get(content_type, (720, 720)))
    raise UnsupportedMedia("This simulated post has nothing to draw a thumbnail from.")
