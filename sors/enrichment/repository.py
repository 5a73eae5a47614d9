"""Every query of the enrichment domain."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypedDict

from sqlalchemy import delete, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post, Profile, TranscriptRecord, VisualAnalysisRecord
from sors.enrichment.analysis import TranscriptData, VisualAnalysisData
from sors.enrichment.models import MediaGrant, MediaKind, PostMedia

# ---- posts -------------------------------------------------------------------------------


async def get_post(session: AsyncSession, post_id: str) -> Post | None:
    return await session.get(Post, post_id)


async def find_post(session: AsyncSession, platform: str, platform_post_id: str) -> Post | None:
    stmt = select(Post).where(Post.platform == platform, Post.platform_post_id == platform_post_id)
    return (await session.execute(stmt)).scalars().first()


async def owner_handle(session: AsyncSession, profile_id: str) -> str | None:
    """The handle the post's owner has now (a renamed creator's posts follow the new row)."""
    stmt = select(Profile.handle).where(Profile.id == profile_id)
    return (await session.execute(stmt)).scalar()


async def set_post_flags(session: AsyncSession, post_id: str, **flags: bool) -> None:
    await session.execute(update(Post).where(Post.id == post_id).values(**flags))


# ---- transcripts and visual analyses -----------------------------------------------------


async def has_transcript(session: AsyncSession, post_id: str) -> bool:
    stmt = select(TranscriptRecord.post_id).where(TranscriptRecord.post_id == post_id)
    return (await session.execute(stmt)).first() is not None


async def save_transcript(
    session: AsyncSession, post_id: str, data: TranscriptData, engine: str, now: datetime
) -> None:
    values = {
        "text": data["text"],
        "language": data["language"],
        "source": data["source"],
        "segments": data["segments"],
        "engine": engine,
        "created_at": now,
    }
    stmt = insert(TranscriptRecord).values(post_id=post_id, **values)
    # A later run (another account's job, a better model) replaces the earlier result.
    stmt = stmt.on_conflict_do_update(index_elements=[TranscriptRecord.post_id], set_=values)
    await session.execute(stmt)
    await set_post_flags(session, post_id, has_transcript=True)


async def save_visual_analysis(
    session: AsyncSession, post_id: str, data: VisualAnalysisData
) -> None:
    values = {
        "scene_count": data["scene_count"],
        "avg_scene_seconds": data["avg_scene_seconds"],
        "scenes": data["scenes"],
        "on_screen_text": data["on_screen_text"],
    }
    stmt = insert(VisualAnalysisRecord).values(post_id=post_id, **values)
    stmt = stmt.on_conflict_do_update(
        index_elements=[VisualAnalysisRecord.post_id], set_={**values, "created_at": text("now()")}
    )
    await session.execute(stmt)
    await set_post_flags(session, post_id, has_visual_analysis=True)


# ---- media -------------------------------------------------------------------------------

_KIND_ORDER = {"video": 0, "image": 1, "thumbnail": 2}


class MediaRow(TypedDict):
    """A stored media file's row (`PostMedia`) without its post."""

    kind: MediaKind
    position: int
    store: str
    storage_key: str
    content_type: str
    size_bytes: int
    width: int | None
    height: int | None
    duration_seconds: float | None


async def media_rows(session: AsyncSession, post_id: str, *, store: str) -> list[PostMedia]:
    stmt = select(PostMedia).where(PostMedia.post_id == post_id, PostMedia.store == store)
    rows = list((await session.execute(stmt)).scalars())
    rows.sort(key=lambda m: (_KIND_ORDER.get(m.kind, 9), m.position))
    return rows


async def replace_media(session: AsyncSession, post_id: str, rows: Sequence[MediaRow]) -> None:
    await session.execute(delete(PostMedia).where(PostMedia.post_id == post_id))
    for row in rows:
        values = {"post_id": post_id, **row}
        # Two jobs storing the same post at once: the later one's rows win, no key clash.
        stmt = insert(PostMedia).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=[PostMedia.post_id, PostMedia.kind, PostMedia.position],
            set_={k: v for k, v in values.items() if k not in ("post_id", "kind", "position")},
        )
        await session.execute(stmt)


_UNUSED_MEDIA_JOB = text("""
SELECT j.id FROM jobs j
 WHERE j.account_id = :account AND j.type = 'media' AND j.status = 'completed'
   AND j.payload->>'postId' = :post
   AND j.finished_at > CAST(:now AS timestamptz) - interval '24 hours'
   AND NOT EXISTS (SELECT 1 FROM media_grants g WHERE g.job_id = j.id)
 ORDER BY j.finished_at
 LIMIT 1
""")


async def use_free_media_call(
    session: AsyncSession, account_id: str, post_id: str, request_id: str | None,
    now: datetime,
) -> str | None:
    """Spend the free follow-up call of this account's media job for the post that finished
    in the last 24 hours, if one is unused. Returns that job's id, or None.

    Two concurrent calls may pick the same job; the grant's primary key lets one of them
    have it and the other pays.
    """
    params = {"account": account_id, "post": post_id, "now": now}
    job_id = (await session.execute(_UNUSED_MEDIA_JOB, params)).scalar()
    if job_id is None:
        return None
    stmt = (
        insert(MediaGrant)
        .values(job_id=job_id, account_id=account_id, post_id=post_id, request_id=request_id)
        .on_conflict_do_nothing(index_elements=[MediaGrant.job_id])
        .returning(MediaGrant.job_id)
    )
    return (await session.execute(stmt)).scalar()
