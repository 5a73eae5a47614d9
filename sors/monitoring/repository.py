"""Every query of the monitoring domain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, text, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.models import ApiKey
from sors.catalog.models import Post, Profile
from sors.catalog.records.repository import OTHER_VIEW_COUNTS
from sors.monitoring.models import PausedReason, StartedBy, TrackedProfile

Row = Mapping[str, Any]

# The flattened post shape's columns (catalog.records.flat_post reads these names).
_POST_COLUMNS = [
    *(c for c in Post.__table__.c if c.key not in ("search_vector", "extra")),
    OTHER_VIEW_COUNTS,
]
_OWNER_COLUMNS = [
    Profile.handle.label("profile_handle"),
    Profile.display_name.label("profile_display_name"),
    Profile.follower_count.label("profile_follower_count"),
    Profile.is_active.label("profile_is_active"),
    Profile.avatar_url.label("profile_avatar_url"),
    Profile.averages.label("profile_averages"),
]


# ---- profiles ---------------------------------------------------------------------------


async def get_profile(session: AsyncSession, profile_id: str) -> Profile | None:
    return await session.get(Profile, profile_id)


async def active_profile(session: AsyncSession, platform: str, handle: str) -> Profile | None:
    stmt = select(Profile).where(
        Profile.platform == platform, Profile.handle == handle, Profile.is_active
    )
    return (await session.execute(stmt)).scalars().first()


async def profile_id_of_post(
    session: AsyncSession, platform: str, platform_post_id: str
) -> str | None:
    stmt = select(Post.profile_id).where(
        Post.platform == platform, Post.platform_post_id == platform_post_id
    )
    return (await session.execute(stmt)).scalar()


# ---- entries ----------------------------------------------------------------------------


async def get_entry(
    session: AsyncSession, account_id: str, profile_id: str, *, for_update: bool = False
) -> TrackedProfile | None:
    stmt = select(TrackedProfile).where(
        TrackedProfile.account_id == account_id, TrackedProfile.profile_id == profile_id
    )
    if for_update:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def add_entry(session: AsyncSession, entry: TrackedProfile) -> None:
    session.add(entry)
    await session.flush()


async def update_entry(
    session: AsyncSession, account_id: str, profile_id: str, **values: Any
) -> None:
    await session.execute(
        update(TrackedProfile)
        .where(TrackedProfile.account_id == account_id, TrackedProfile.profile_id == profile_id)
        .values(**values)
    )


async def delete_entry(session: AsyncSession, account_id: str, profile_id: str) -> bool:
    stmt = (
        delete(TrackedProfile)
        .where(TrackedProfile.account_id == account_id, TrackedProfile.profile_id == profile_id)
        .returning(TrackedProfile.profile_id)
    )
    return (await session.execute(stmt)).first() is not None


async def list_entries(
    session: AsyncSession, account_id: str, *, for_update: bool = False
) -> list[tuple[TrackedProfile, Profile]]:
    stmt = (
        select(TrackedProfile, Profile)
        .join(Profile, Profile.id == TrackedProfile.profile_id)
        .where(TrackedProfile.account_id == account_id)
        .order_by(TrackedProfile.created_at, TrackedProfile.profile_id)
    )
    if for_update:
        stmt = stmt.with_for_update(of=TrackedProfile)
    return [(e, p) for e, p in (await session.execute(stmt)).all()]


async def new_posts(session: AsyncSession, account_id: str, *, limit: int) -> list[Row]:
    """Posts stored after each tracked profile's cursor, oldest stored first."""
    stmt = (
        select(*_POST_COLUMNS, *_OWNER_COLUMNS)
        .join(Profile, Profile.id == Post.profile_id)
        .join(
            TrackedProfile,
            (TrackedProfile.profile_id == Post.profile_id)
            & (TrackedProfile.account_id == account_id),
        )
        .where(
            tuple_(Post.first_seen_at, Post.id)
            > tuple_(TrackedProfile.cursor_seen_at, TrackedProfile.cursor_post_id)
        )
        .order_by(Post.first_seen_at, Post.id)
        .limit(limit)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def advance_cursor(
    session: AsyncSession, account_id: str, profile_id: str, seen_at: datetime, post_id: str
) -> None:
    await session.execute(
        update(TrackedProfile)
        .where(TrackedProfile.account_id == account_id, TrackedProfile.profile_id == profile_id)
        .values(cursor_seen_at=seen_at, cursor_post_id=post_id)
    )


# ---- scheduling ---------------------------------------------------------------------------


async def due_entries(
    session: AsyncSession, now: datetime, *, limit: int
) -> list[tuple[TrackedProfile, Profile, bool]]:
    """Unpaused entries whose refresh is due, locked, each with whether its key was revoked;
    entries another scheduler holds are skipped, never waited for."""
    stmt = (
        select(TrackedProfile, Profile, ApiKey.revoked_at.is_not(None))
        .join(Profile, Profile.id == TrackedProfile.profile_id)
        .outerjoin(ApiKey, ApiKey.id == TrackedProfile.key_id)
        .where(TrackedProfile.paused_reason.is_(None), TrackedProfile.next_crawl_at <= now)
        .order_by(
            TrackedProfile.next_crawl_at, TrackedProfile.account_id, TrackedProfile.profile_id
        )
        .limit(limit)
        .with_for_update(of=TrackedProfile, skip_locked=True)
    )
    return [(e, p, bool(revoked)) for e, p, revoked in (await session.execute(stmt)).all()]


_RESUME_FUNDED = text(f"""
UPDATE tracked_profiles t
   SET paused_reason = NULL, paused_at = NULL, next_crawl_at = :now, updated_at = :now
  FROM accounts a
 WHERE a.id = t.account_id AND t.paused_reason = '{PausedReason.NO_CREDITS}'
   AND a.balance >= :cost
RETURNING t.account_id
""")


async def resume_funded(session: AsyncSession, now: datetime, cost: int) -> int:
    """Unpause every entry whose account can pay a refresh again; due at once."""
    return len((await session.execute(_RESUME_FUNDED, {"now": now, "cost": cost})).all())


_RESUME_NEXT_DAY = text(f"""
UPDATE tracked_profiles
   SET paused_reason = NULL, paused_at = NULL, next_crawl_at = :now, updated_at = :now
 WHERE paused_reason = '{PausedReason.SPEND_CAP}' AND paused_at < :day_start
RETURNING account_id
""")


async def resume_next_day(session: AsyncSession, now: datetime, day_start: datetime) -> int:
    """Unpause every entry its key's cap paused before `day_start` (the UTC day of `now`,
    when caps start again); due at once."""
    params = {"now": now, "day_start": day_start}
    return len((await session.execute(_RESUME_NEXT_DAY, params)).all())


async def resume_account(session: AsyncSession, account_id: str, now: datetime) -> int:
    stmt = (
        update(TrackedProfile)
        .where(
            TrackedProfile.account_id == account_id,
            TrackedProfile.paused_reason == PausedReason.NO_CREDITS,
        )
        .values(paused_reason=None, paused_at=None, next_crawl_at=now, updated_at=now)
        .returning(TrackedProfile.profile_id)
    )
    return len((await session.execute(stmt)).all())


async def entries_for_profiles(
    session: AsyncSession, account_id: str, profile_ids: Sequence[str]
) -> list[TrackedProfile]:
    stmt = select(TrackedProfile).where(
        TrackedProfile.account_id == account_id, TrackedProfile.profile_id.in_(list(profile_ids))
    )
    return list((await session.execute(stmt)).scalars())


async def trackers(session: AsyncSession, profile_id: str) -> list[str]:
    """The accounts monitoring a profile."""
    stmt = select(TrackedProfile.account_id).where(TrackedProfile.profile_id == profile_id)
    return list((await session.execute(stmt)).scalars())


async def user_entries(session: AsyncSession, account_id: str) -> list[TrackedProfile]:
    """The entries the account started itself (the watchlist), oldest first, locked."""
    stmt = (
        select(TrackedProfile)
        .where(TrackedProfile.account_id == account_id, TrackedProfile.started_by == StartedBy.USER)
        .order_by(TrackedProfile.created_at, TrackedProfile.profile_id)
        .with_for_update()
    )
    return list((await session.execute(stmt)).scalars())
