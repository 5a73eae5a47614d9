"""The alerts domain's queries about the addresses alerts send to: each (account, email)
with its confirmation state and digest schedule."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncSession

from sors.alerts.models import Alert, AlertAddress
from sors.catalog.models import Profile

Row = RowMapping  # a result row by column name
ADDRESS_JOIN = and_(AlertAddress.account_id == Alert.account_id, AlertAddress.email == Alert.email)


async def get_address(
    session: AsyncSession,
    account_id: str,
    email: str,
    *,
    lock: bool = False,
    skip_locked: bool = False,
) -> AlertAddress | None:
    stmt = select(AlertAddress).where(
        AlertAddress.account_id == account_id, AlertAddress.email == email
    )
    if lock:
        stmt = stmt.with_for_update(skip_locked=skip_locked)
    return (await session.execute(stmt)).scalars().first()


async def add_address(session: AsyncSession, address: AlertAddress) -> None:
    session.add(address)
    await session.flush()


async def update_address(session: AsyncSession, account_id: str, email: str, **values: Any) -> None:
    await session.execute(
        update(AlertAddress)
        .where(AlertAddress.account_id == account_id, AlertAddress.email == email)
        .values(**values)
    )


async def confirm_address(
    session: AsyncSession, account_id: str, email: str, now: datetime
) -> bool | None:
    """True when confirmed now, False when it already was, None when unknown."""
    address = await get_address(session, account_id, email, lock=True)
    if address is None:
        return None
    if address.confirmed_at is not None:
        return False
    address.confirmed_at = now
    address.next_confirmation_at = None
    await session.flush()
    return True


async def unconfirmed_addresses_in_use(session: AsyncSession, account_id: str) -> set[str]:
    """Distinct unconfirmed addresses that an active alert of the account sends to."""
    stmt = (
        select(Alert.email)
        .join(AlertAddress, ADDRESS_JOIN)
        .where(
            Alert.account_id == account_id,
            Alert.status == "active",
            AlertAddress.confirmed_at.is_(None),
        )
        .distinct()
    )
    return set((await session.execute(stmt)).scalars())


async def confirmations_due(session: AsyncSession, now: datetime, *, limit: int) -> list[Row]:
    """Unconfirmed addresses in use whose confirmation email is (again) due."""
    active = exists().where(ADDRESS_JOIN, Alert.status == "active")
    stmt = (
        select(AlertAddress.account_id, AlertAddress.email)
        .where(
            AlertAddress.confirmed_at.is_(None),
            AlertAddress.confirmation_sent_at.is_(None),
            AlertAddress.next_confirmation_at <= now,
            active,
        )
        .order_by(AlertAddress.next_confirmation_at)
        .limit(limit)
    )
    return list((await session.execute(stmt)).mappings())


async def any_active_alert_profile(
    session: AsyncSession, account_id: str, email: str
) -> Profile | None:
    stmt = (
        select(Profile)
        .join(Alert, Alert.profile_id == Profile.id)
        .where(Alert.account_id == account_id, Alert.email == email, Alert.status == "active")
        .order_by(Alert.created_at.desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalars().first()
