"""Ingest's profile half: each crawled profile's row upserted in one statement per batch
(the active row of its handle, or a new one), and renamed creators followed (same platform
user id under a new handle: the old row becomes inactive and its posts move)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypedDict

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.bulk import arrays, columns
from sors.catalog.models import Post, Profile
from sors.kit.db import binary_sql, execute_rows
from sors.kit.ids import new_id
from sors.platforms.base import CrawlSnapshot, ProfileSnapshot

_PROFILE_COLS = (
    ("id", "text"),
    ("platform", "text"),
    ("handle", "text"),
    ("display_name", "text"),
    ("bio", "text"),
    ("avatar_url", "text"),
    ("url", "text"),
    ("follower_count", "int8"),
    ("follower_count_approximate", "bool"),
    ("platform_user_id", "text"),
    ("last_crawled_at", "timestamptz"),
    ("data_source", "text"),
)
_PROFILE_SET = [n for n, _ in _PROFILE_COLS if n not in ("id", "platform", "handle")]
_UPDATE_PROFILES = binary_sql(text(f"""
UPDATE profiles pr
   SET {", ".join(f"{c} = u.{c}" for c in _PROFILE_SET)}
  FROM unnest({arrays(_PROFILE_COLS)}) AS u({", ".join(n for n, _ in _PROFILE_COLS)})
 WHERE pr.platform = u.platform AND pr.handle = u.handle AND pr.is_active
RETURNING pr.platform || ':' || pr.handle, pr.id
"""))
_INSERT_PROFILES = binary_sql(text(f"""
INSERT INTO profiles ({", ".join(n for n, _ in _PROFILE_COLS)}, is_active, first_seen_at)
SELECT *, true, u.last_crawled_at
  FROM unnest({arrays(_PROFILE_COLS)}) AS u({", ".join(n for n, _ in _PROFILE_COLS)})
"""))
# New profiles whose platform account is another active profile's: renamed creators.
_RENAMED_FROM = text("""
SELECT n.id, array_agg(o.id)
  FROM unnest(CAST(:id AS text[]), CAST(:platform AS text[]), CAST(:puid AS text[]))
       AS n(id, platform, puid)
  JOIN profiles o ON o.platform = n.platform AND o.platform_user_id = n.puid
                 AND o.is_active AND o.id <> n.id
 GROUP BY n.id
""")


async def upsert_profiles(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot]
) -> tuple[list[str], set[str]]:
    """Each snapshot's profile id (the active row of its handle, or a new one) and the set
    of profiles this batch created (each handle once). One statement updates the known
    profiles and one inserts the new; a batch with two new handles of one account goes one
    by one, as the order of its crawls then decides which is the rename."""
    handles = [(s.profile.platform, s.profile.handle) for s in snapshots]
    rows = [_profile_row(s.profile, s.fetched_at, s.source) for s in snapshots]
    found = dict(await execute_rows(session, _UPDATE_PROFILES, columns(rows, _PROFILE_COLS)))
    ids: list[str | None] = [found.get(r["platform"] + ":" + r["handle"]) for r in rows]
    new = [r for r, pid in zip(rows, ids, strict=True) if pid is None]
    accounts = [(r["platform"], r["platform_user_id"]) for r in new if r["platform_user_id"]]
    if len(set(accounts)) < len(accounts):
        return await _upsert_one_by_one(session, snapshots)
    fresh: set[str] = set()
    if new:
        new_ids = [new_id("prf") for _ in new]
        for r, made in zip(new, new_ids, strict=True):
            r["id"] = made
        await execute_rows(session, _INSERT_PROFILES, columns(new, _PROFILE_COLS))
        by_handle = {f"{r['platform']}:{r['handle']}": made
                     for r, made in zip(new, new_ids, strict=True)}
        ids = [pid or by_handle[f"{p}:{h}"] for pid, (p, h) in zip(ids, handles, strict=True)]
        fresh = set(by_handle.values())
        renamed = await session.execute(_RENAMED_FROM, {
            "id": new_ids,
            "platform": [r["platform"] for r in new],
            "puid": [r["platform_user_id"] for r in new],
        })
        for new_pid, old in renamed:
            await _follow_rename(session, new_pid, old)
            fresh.discard(new_pid)
    return [pid for pid in ids if pid is not None], fresh


async def _upsert_one_by_one(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot]
) -> tuple[list[str], set[str]]:
    profile_ids: list[str] = []
    fresh: set[str] = set()
    for snap in snapshots:
        pid, created = await _upsert_profile(session, snap.profile, snap.fetched_at, snap.source)
        profile_ids.append(pid)
        if created:
            fresh.add(pid)
    return profile_ids, fresh


class _ProfileValues(TypedDict):
    """What a crawl sets on a profile it already has."""

    display_name: str | None
    bio: str | None
    avatar_url: str | None
    url: str | None
    follower_count: int | None
    follower_count_approximate: bool
    platform_user_id: str | None
    last_crawled_at: datetime
    data_source: str | None


class _ProfileRow(_ProfileValues):
    """A crawled profile as the batch writes it (`_PROFILE_COLS`); its id once it is new."""

    id: str | None
    platform: str
    handle: str


def _profile_values(p: ProfileSnapshot, at: datetime, source: str | None) -> _ProfileValues:
    return {
        "display_name": p.display_name,
        "bio": p.bio,
        "avatar_url": p.avatar_url,
        "url": p.url,
        "follower_count": p.follower_count,
        "follower_count_approximate": p.follower_count_approximate,
        "platform_user_id": p.platform_user_id,
        "last_crawled_at": at,
        "data_source": source,
    }


def _profile_row(p: ProfileSnapshot, at: datetime, source: str | None) -> _ProfileRow:
    return {"id": None, "platform": p.platform, "handle": p.handle,
            **_profile_values(p, at, source)}


async def _follow_rename(session: AsyncSession, new_pid: str, old: list[str]) -> None:
    """Same platform account under another handle: the creator renamed. The old row stays
    (inactive, frozen) and the posts follow the account to its new handle."""
    await session.execute(
        update(Profile).where(Profile.id.in_(old)).values(is_active=False, renamed_to_id=new_pid)
    )
    await session.execute(update(Post).where(Post.profile_id.in_(old)).values(profile_id=new_pid))


async def _upsert_profile(
    session: AsyncSession, p: ProfileSnapshot, at: datetime, source: str | None
) -> tuple[str, bool]:
    values = _profile_values(p, at, source)
    existing = (
        await session.execute(
            select(Profile.id).where(
                Profile.platform == p.platform, Profile.handle == p.handle, Profile.is_active
            )
        )
    ).scalar()
    if existing:
        await session.execute(update(Profile).where(Profile.id == existing).values(**values))
        return existing, False
    new_pid = new_id("prf")
    session.add(
        Profile(
            id=new_pid,
            platform=p.platform,
            handle=p.handle,
            is_active=True,
            first_seen_at=at,
            **values,
        )
    )
    await session.flush()
    if p.platform_user_id:
        # Same platform account under another handle: the creator renamed. The old row stays
        # (inactive, frozen) and the posts follow the account to its new handle.
        old = (
            (
                await session.execute(
                    select(Profile.id).where(
                        Profile.platform == p.platform,
                        Profile.platform_user_id == p.platform_user_id,
                        Profile.is_active,
                        Profile.id != new_pid,
                    )
                )
            )
            .scalars()
            .all()
        )
        if old:
            await _follow_rename(session, new_pid, list(old))
            return new_pid, False
    return new_pid, True
