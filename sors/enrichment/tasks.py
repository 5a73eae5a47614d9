"""Enrichment jobs: `transcription` (transcript + visual analysis) and `media` (store the
post's files for download_post_media). Remix jobs reuse `enrich_post`.

Media come through the platform adapter (the simulated one renders real files), into a
temporary directory that is removed when the job ends. Speech-to-text, OCR and shot
detection are CPU-bound and run in worker threads, so the worker keeps heartbeating.
Permanent failures raise JobFailed (the engine fails the job and refunds it once); a
platform's transient failure propagates and the engine retries it.
"""

from __future__ import annotations

import asyncio
import mimetypes
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal, TypedDict

from sors.catalog.models import Post
from sors.catalog.records import repository as catalog_repo
from sors.catalog.vectors import embeddings
from sors.enrichment import analysis, pipeline
from sors.enrichment import repository as repo
from sors.enrichment.errors import EnrichmentError
from sors.enrichment.models import MediaKind
from sors.enrichment.service import API_MEDIA_KINDS, SLIDE_TYPES, SPEECH_TYPES, stored_media
from sors.enrichment.speech import SpeechOptions
from sors.enrichment.storage import MediaStore, get_media_store
from sors.jobs.engine import JobContext, JobFailed
from sors.jobs.platform import adapter_for, sync_world
from sors.platforms.base import (
    MediaFile,
    MediaNotMade,
    PlatformError,
    PostRef,
    is_media_type,
    platform_of,
)
from sors.queue.models import Job

OCR_ENGINE = "rapidocr"


class PostJobResult(TypedDict):
    """What a job about one post answers (transcription, media, remix, analysis)."""

    postId: str


@dataclass(frozen=True)
class PostInfo:
    post: Post
    handle: str | None
    has_transcript: bool
    has_visual_analysis: bool


def media_store(ctx: JobContext) -> MediaStore:
    return get_media_store(ctx.settings)


@asynccontextmanager
async def scratch_dir(ctx: JobContext) -> AsyncIterator[Path]:
    root = ctx.settings.data_dir / "tmp"
    await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
    tmp = await asyncio.to_thread(tempfile.mkdtemp, prefix="media-", dir=root)
    try:
        yield Path(tmp)
    finally:
        await asyncio.to_thread(shutil.rmtree, tmp, True)


async def load_post(ctx: JobContext, post_id: str) -> PostInfo:
    async with ctx.db.session() as s:
        post = await repo.get_post(s, post_id)
        if post is None:
            raise JobFailed("post_not_found", f"The post {post_id} is no longer in the catalog.")
        return PostInfo(
            post,
            await repo.owner_handle(s, post.profile_id),
            await catalog_repo.get_transcript(s, post_id) is not None,
            await catalog_repo.get_visual_analysis(s, post_id) is not None,
        )


async def fetch_media(ctx: JobContext, info: PostInfo, dest: Path) -> list[MediaFile]:
    """The post's media files from its platform (or the simulated world)."""
    post = info.post
    ref = PostRef(
        platform=platform_of(post.platform),
        platform_post_id=post.platform_post_id,
        url=post.url,
        content_type=post.content_type,
        handle=info.handle,
        published_at=post.published_at,
        extra=dict(post.extra or {}),
    )
    await sync_world(ctx)
    try:
        files = await adapter_for(ctx).fetch_media(ref, dest, now=ctx.now())
    except MediaNotMade as exc:  # e.g. the simulated renderer failing
        raise JobFailed(exc.code, str(exc)) from exc
    except PlatformError as exc:
        if exc.retryable:
            raise  # the engine retries it later
        raise JobFailed(
            "media_unavailable",
            f"The {post.platform} post's media could not be fetched ({exc.code}): {exc}",
        ) from exc
    return [f for f in files if f.path.is_file() and f.path.stat().st_size > 0]


def _media_kind(post: Post) -> Literal["speech", "slides"]:
    if post.content_type in SPEECH_TYPES:
        return "speech"
    if post.content_type in SLIDE_TYPES:
        return "slides"
    raise JobFailed(
        "unsupported_post",
        f"{post.platform} posts of type {post.content_type!r} cannot be transcribed or analysed.",
    )


# ---- transcript + visual analysis --------------------------------------------------------


def slides_transcript(visual: analysis.VisualAnalysis) -> analysis.Transcript:
    """The slides' transcript from their analysis: the same OCR of the same images
    (`transcribe_slides` and `analyze_slides` read each slide identically), done once."""
    segments = [
        analysis.TranscriptSegment(s.start, s.end, s.on_screen_text)
        for s in visual.scenes
        if s.on_screen_text
    ]
    return analysis.Transcript(
        text="\n".join(s.text for s in segments),
        language=None,
        source="on_screen_text",
        segments=segments,
    )


async def _analyse(
    ctx: JobContext, info: PostInfo, files: Sequence[MediaFile]
) -> tuple[analysis.Transcript | None, analysis.VisualAnalysis | None, str]:
    """(transcript, visual analysis, transcript engine) for what is still missing."""
    kind = _media_kind(info.post)
    if kind == "speech":
        video = next((f for f in files if f.kind == "video"), None)
        audio = video or next((f for f in files if f.kind == "audio"), None)
        if audio is None:
            raise JobFailed("media_unavailable", "The platform returned no video for this post.")
        options = SpeechOptions.from_settings(ctx.settings)
        transcript = None
        if not info.has_transcript:
            transcript = await asyncio.to_thread(pipeline.transcribe_video, audio.path, options)
        visual = None
        if not info.has_visual_analysis and video is not None:
            visual = await asyncio.to_thread(pipeline.analyze_video, video.path)
        engine = (
            OCR_ENGINE
            if transcript and transcript.source != "speech"
            else (f"faster-whisper:{options.model or 'tiny.en'}")
        )
        return transcript, visual, engine
    images = sorted((f for f in files if f.kind == "image"), key=lambda f: f.position)
    if not images:
        raise JobFailed("media_unavailable", "The platform returned no images for this post.")
    visual = await asyncio.to_thread(pipeline.analyze_slides, [f.path for f in images])
    transcript = None if info.has_transcript else slides_transcript(visual)
    return transcript, (None if info.has_visual_analysis else visual), OCR_ENGINE


async def enrich_post(ctx: JobContext, post_id: str) -> None:
    """Make sure the post has a transcript and a visual analysis; produce what is missing."""
    info = await load_post(ctx, post_id)
    if info.has_transcript and info.has_visual_analysis:
        return
    _media_kind(info.post)  # refuse unsupported posts before fetching anything
    async with scratch_dir(ctx) as tmp:
        files = await fetch_media(ctx, info, tmp)
        try:
            transcript, visual, engine = await _analyse(ctx, info, files)
        except EnrichmentError as exc:
            raise JobFailed(exc.code, exc.message) from exc
    async with ctx.db.transaction() as s:
        if transcript is not None:
            await repo.save_transcript(s, post_id, transcript.to_dict(), engine, ctx.now())
        if visual is not None:
            await repo.save_visual_analysis(s, post_id, visual.to_dict())
        if transcript is not None or visual is not None:
            # What the post says and shows now counts for search by meaning too.
            await embeddings.refresh(s, [post_id])


async def transcription(ctx: JobContext, job: Job) -> PostJobResult:
    post_id = job.payload["postId"]
    await enrich_post(ctx, post_id)
    return {"postId": post_id}


# ---- media -------------------------------------------------------------------------------


def _stored_kind(f: MediaFile) -> MediaKind | None:
    """The kind a file is stored as; None for what is not handed out: a separate audio
    track, or a file that is not an image, video or audio by its type (served from this
    service's origin, an HTML page or an SVG would run script there)."""
    return None if f.kind == "audio" or not is_media_type(f.content_type) else f.kind


def storage_key(post_id: str, f: MediaFile) -> str:
    ext = PurePath(f.path.name).suffix.lower() or mimetypes.guess_extension(f.content_type) or ""
    return f"posts/{post_id}/{f.kind}-{f.position:02d}{ext}"


async def store_media(ctx: JobContext, post_id: str) -> None:
    store = media_store(ctx)
    info = await load_post(ctx, post_id)
    post = info.post
    async with ctx.db.session() as s:
        if await stored_media(s, store, post):
            return  # another job (maybe another account's) stored them meanwhile
    wanted = API_MEDIA_KINDS.get(post.platform, frozenset())
    async with scratch_dir(ctx) as tmp:
        files = [
            (kind, f) for f in await fetch_media(ctx, info, tmp)
            if (kind := _stored_kind(f)) is not None and kind in wanted
        ]
        if not files:
            what = "thumbnail" if post.platform == "youtube" else "media files"
            raise JobFailed("media_unavailable", f"The platform returned no {what} for this post.")
        rows: list[repo.MediaRow] = []
        for kind, f in files:
            key = storage_key(post_id, f)
            size = await store.put(key, f.path, f.content_type)
            rows.append({
                "kind": kind, "position": f.position, "store": store.name, "storage_key": key,
                "content_type": f.content_type, "size_bytes": size, "width": f.width,
                "height": f.height, "duration_seconds": f.duration_seconds,
            })
    async with ctx.db.transaction() as s:
        await repo.replace_media(s, post_id, rows)


async def media(ctx: JobContext, job: Job) -> PostJobResult:
    post_id = job.payload["postId"]
    await store_media(ctx, post_id)
    return {"postId": post_id}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"transcription": transcription, "media": media}
