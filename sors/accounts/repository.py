"""Every query of the accounts domain."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.models import Account, ApiKey, ApiKeySpend, Member


async def add(session: AsyncSession, obj: object) -> None:
    session.add(obj)
    await session.flush()


async def get_account(session: AsyncSession, account_id: str) -> Account | None:
    return await session.get(Account, account_id)


async def find_account_by_email(session: AsyncSession, email: str) -> Account | None:
    stmt = select(Account).where(Account.email.ilike(email)).order_by(Account.created_at)
    return (await session.execute(stmt)).scalars().first()


# key id, account id, role, member id, capped
KeyHolder = tuple[str, str, str, str | None, bool]
# A member's key answers only while the membership is active: a key made in a race with the
# member's removal (see keys.create) stops working with it.
_HOLDER = (
    select(ApiKey.id, ApiKey.account_id, func.coalesce(Member.role, "owner"), ApiKey.member_id,
           ApiKey.daily_credit_cap.is_not(None))
    .outerjoin(Member, Member.id == ApiKey.member_id)
    .where(ApiKey.revoked_at.is_(None),
           or_(ApiKey.member_id.is_(None), Member.status == "active"))
)


async def active_key_by_hash(session: AsyncSession, key_hash: str) -> KeyHolder | None:
    row = (await session.execute(_HOLDER.where(ApiKey.key_hash == key_hash))).first()
    return None if row is None else (row[0], row[1], row[2], row[3], bool(row[4]))


async def active_key_by_id(session: AsyncSession, key_id: str) -> KeyHolder | None:
    row = (await session.execute(_HOLDER.where(ApiKey.id == key_id))).first()
    return None if row is None else (row[0], row[1], row[2], row[3], bool(row[4]))


async def list_keys(session: AsyncSession, account_id: str | None) -> list[ApiKey]:
    stmt = select(ApiKey).order_by(ApiKey.created_at)
    if account_id:
        stmt = stmt.where(ApiKey.account_id == account_id)
    return list((await session.execute(stmt)).scalars())


AccountRow = tuple[Account, int]  # the account, its active keys


async def list_accounts(session: AsyncSession) -> list[AccountRow]:
    """Every account, oldest first, with its number of active keys."""
    keys = (
        select(func.count()).where(ApiKey.account_id == Account.id, ApiKey.revoked_at.is_(None))
        .correlate(Account).scalar_subquery()
    )
    rows = await session.execute(select(Account, keys).order_by(Account.created_at, Account.id))
    return [(a, int(n)) for a, n in rows.all()]


async def revoke_key(session: AsyncSession, key_id: str, at: datetime) -> bool:
    stmt = (
        update(ApiKey)
        .where(ApiKey.id == key_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=at)
        .returning(ApiKey.id)
    )
    return (await session.execute(stmt)).first() is not None


async def lock_account(session: AsyncSession, account_id: str) -> None:
    """Serialises key changes of one account (so two revocations cannot remove the last two
    keys at once)."""
    await session.execute(select(Account.id).where(Account.id == account_id).with_for_update())


async def active_keys_with_spend(
    session: AsyncSession, account_id: str, day: date
) -> list[tuple[ApiKey, int]]:
    stmt = (
        select(ApiKey, func.coalesce(ApiKeySpend.spent, 0))
        .outerjoin(ApiKeySpend, (ApiKeySpend.key_id == ApiKey.id) & (ApiKeySpend.day == day))
        .where(ApiKey.account_id == account_id, ApiKey.revoked_at.is_(None))
        .order_by(ApiKey.created_at, ApiKey.id)
    )
    return [(k, int(spent)) for k, spent in (await session.execute(stmt)).all()]


async def active_key(session: AsyncSession, account_id: str, key_id: str) -> ApiKey | None:
    stmt = select(ApiKey).where(
        ApiKey.id == key_id, ApiKey.account_id == account_id, ApiKey.revoked_at.is_(None)
    )
    return (await session.execute(stmt)).scalars().first()


async def spent_on(session: AsyncSession, key_id: str, day: date) -> int:
    stmt = select(ApiKeySpend.spent).where(ApiKeySpend.key_id == key_id, ApiKeySpend.day == day)
    return int((await session.execute(stmt)).scalar() or 0)


async def add_member(session: AsyncSession, member: Member) -> None:
    session.add(member)
    await session.flush()


async def get_member(
    session: AsyncSession, member_id: str, *, lock: bool = False
) -> Member | None:
    stmt = select(Member).where(Member.id == member_id)
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def live_members(session: AsyncSession, account_id: str) -> list[Member]:
    """Invited and active members, oldest first."""
    stmt = (
        select(Member)
        .where(Member.account_id == account_id, Member.status != "removed")
        .order_by(Member.invited_at, Member.id)
    )
    return list((await session.execute(stmt)).scalars())


async def revoke_member_keys(session: AsyncSession, member_id: str, at: datetime) -> list[str]:
    stmt = (
        update(ApiKey)
        .where(ApiKey.member_id == member_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=at)
        .returning(ApiKey.id)
    )
    return list((await session.execute(stmt)).scalars())
