"""request_transcript and download_post_media: which post is meant, what is already stored,
and which job to queue. Plus the stored records for GET /posts/{id}.

The heavy work (fetching media, speech-to-text, OCR, shot detection) happens in the jobs
(`enrichment.tasks`); requests only read the database and enqueue.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post
from sors.catalog.records.errors import PostNotFound, ShortLinkNotSupported, UnsupportedUrl
from sors.enrichment import repository as repo
from sors.enrichment.errors import MissingTarget
from sors.enrichment.models import MediaKind, PostMedia
from sors.enrichment.schemas import MediaItem, TargetIn, media_item
from sors.enrichment.storage import LocalMediaStore, MediaStore
from sors.jobs import service as jobs
from sors.kit.errors import ValidationFailed
from sors.platforms import urls
from sors.queue.models import Job

# What each content type is transcribed from.
SPEECH_TYPES = frozenset({"video", "reel", "short", "live"})
SLIDE_TYPES = frozenset({"slideshow", "carousel", "image"})
# What download_post_media hands out per platform: YouTube gets the thumbnail only.
API_MEDIA_KINDS: dict[str, frozenset[MediaKind]] = {
    "youtube": frozenset({"thumbnail"}),
    "tiktok": frozenset({"video", "image", "thumbnail"}),
    "instagram": frozenset({"video", "image", "thumbnail"}),
}


# ---- the post a request names ------------------------------------------------------------


async def resolve_target(session: AsyncSession, body: TargetIn | None) -> Post:
    """The post named by `url` and/or `postId`. A URL is only parsed and looked up, never
    fetched."""
    url = body.url if body else None
    post_id = body.postId if body else None
    if url is None and post_id is None:
        raise MissingTarget("Send the post's `url` or its `postId`.")
    parsed = None
    if url is not None:
        try:
            parsed = urls.parse_post_url(url)
        except urls.ShortLinkNotSupported as exc:
            raise ShortLinkNotSupported(str(exc)) from exc
        except urls.UrlError as exc:
            raise UnsupportedUrl(str(exc)) from exc
    if post_id is not None:
        post = await repo.get_post(session, post_id)
        if post is None:
            raise PostNotFound(f"No post with id {post_id!r}.")
        if parsed is not None and (parsed.platform, parsed.platform_post_id) != (
            post.platform,
            post.platform_post_id,
        ):
            raise ValidationFailed.single("url", "`url` and `postId` name different posts.")
        return post
    assert parsed is not None
    post = await repo.find_post(session, parsed.platform, parsed.platform_post_id)
    if post is None:
        raise PostNotFound(
            f"The {parsed.platform} post {parsed.platform_post_id} is not in the catalog yet; "
            "crawl its profile first with POST /api/v1/crawls."
        )
    return post


# ---- request_transcript ------------------------------------------------------------------


@dataclass(frozen=True)
class Queued:
    """What a request for background work came to: already done, or a job (new or not)."""

    job: Job | None
    new_job: bool = False

    @property
    def done(self) -> bool:
        return self.job is None


async def request_transcript(
    session: AsyncSession, *, account_id: str, post: Post, credits: int, now: datetime,
    max_attempts: int,
) -> Queued:
    if await repo.has_transcript(session, post.id):
        return Queued(None)
    job, created = await jobs.enqueue(
        session,
        type="transcription",
        account_id=account_id,
        payload={"postId": post.id},
        credits=credits,
        dedupe_key=f"transcription:{account_id}:{post.id}",
        now=now,
        max_attempts=max_attempts,
    )
    return Queued(job, created)


# ---- download_post_media -----------------------------------------------------------------


@dataclass(frozen=True)
class MediaOutcome:
    queued: Queued | None = None  # set when the media are not stored yet
    items: list[MediaItem] = field(default_factory=list)
    expires_at: datetime | None = None
    free: bool = False  # the free follow-up call of a completed media job


async def stored_media(session: AsyncSession, store: MediaStore, post: Post) -> list[PostMedia]:
    """The post's stored media rows a caller gets, or [] when they are not (all) there."""
    rows = await repo.media_rows(session, post.id, store=store.name)
    allowed = API_MEDIA_KINDS.get(post.platform, frozenset())
    rows = [m for m in rows if m.kind in allowed]
    if rows and isinstance(store, LocalMediaStore):
        # A file removed behind our back (disk cleanup) means fetching again, not a dead link.
        present = await asyncio.gather(*(store.exists(m.storage_key) for m in rows))
        if not all(present):
            return []
    return rows


async def request_media(
    session: AsyncSession,
    *,
    store: MediaStore,
    account_id: str,
    post: Post,
    credits: int,
    ttl_seconds: int,
    now: datetime,
    max_attempts: int,
    request_id: str | None,
) -> MediaOutcome:
    rows = await stored_media(session, store, post)
    if not rows:
        job, created = await jobs.enqueue(
            session,
            type="media",
            account_id=account_id,
            payload={"postId": post.id},
            credits=credits,
            dedupe_key=f"media:{account_id}:{post.id}",
            now=now,
            max_attempts=max_attempts,
        )
        return MediaOutcome(queued=Queued(job, created))
    # The service clock, like every other time the API shows (simulated in the demo).
    expires_at = now.replace(microsecond=0) + timedelta(seconds=ttl_seconds)
    items = [
        media_item(m, store.url(m.storage_key, content_type=m.content_type,
                                expires_at=expires_at, now=now))
        for m in rows
    ]
    free = await repo.use_free_media_call(session, account_id, post.id, request_id,
                                          now) is not None
    return MediaOutcome(items=items, expires_at=expires_at, free=free)
