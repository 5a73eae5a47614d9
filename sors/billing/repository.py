"""Every query of the billing domain."""

from __future__ import annotations

from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.models import LedgerEntry

_DEBIT = text(
    "UPDATE accounts SET balance = balance - :n WHERE id = :a AND balance >= :n RETURNING balance"
)
_LOCK = text("SELECT balance FROM accounts WHERE id = :a FOR UPDATE")
_CREDIT = text("UPDATE accounts SET balance = balance + :n WHERE id = :a RETURNING balance")


async def debit(session: AsyncSession, account_id: str, amount: int) -> int | None:
    """The guarded debit: the new balance, or None when it would go below zero."""
    row = (await session.execute(_DEBIT, {"n": amount, "a": account_id})).first()
    return None if row is None else int(row[0])


async def lock_balance(session: AsyncSession, account_id: str) -> int | None:
    row = (await session.execute(_LOCK, {"a": account_id})).first()
    return None if row is None else int(row[0])


async def credit(session: AsyncSession, account_id: str, amount: int) -> int:
    return int((await session.execute(_CREDIT, {"n": amount, "a": account_id})).scalar_one())


async def balance(session: AsyncSession, account_id: str) -> int:
    row = (await session.execute(text("SELECT balance FROM accounts WHERE id = :a"), {"a": account_id})).first()
    return 0 if row is None else int(row[0])


async def insert_entry(session: AsyncSession, values: dict) -> bool:
    """Insert a ledger row; False when its refund_of / external_ref was already used."""
    stmt = insert(LedgerEntry).values(**values).on_conflict_do_nothing().returning(LedgerEntry.id)
    return (await session.execute(stmt)).first() is not None


async def get_entry(session: AsyncSession, entry_id: str) -> LedgerEntry | None:
    return await session.get(LedgerEntry, entry_id)


async def charge_for_job(session: AsyncSession, job_ref: str) -> LedgerEntry | None:
    stmt = select(LedgerEntry).where(LedgerEntry.job_ref == job_ref, LedgerEntry.kind == "charge")
    return (await session.execute(stmt)).scalars().first()


async def refund_of(session: AsyncSession, charge_id: str) -> LedgerEntry | None:
    stmt = select(LedgerEntry).where(LedgerEntry.refund_of == charge_id)
    return (await session.execute(stmt)).scalars().first()


async def list_entries(
    session: AsyncSession, account_id: str, *, limit: int, before: str | None
) -> list[LedgerEntry]:
    stmt = select(LedgerEntry).where(LedgerEntry.account_id == account_id)
    if before:
        stmt = stmt.where(LedgerEntry.id < before)
    stmt = stmt.order_by(LedgerEntry.id.desc()).limit(limit)
    return list((await session.execute(stmt)).scalars())


async def ledger_sum(session: AsyncSession, account_id: str) -> int:
    q = text("SELECT COALESCE(SUM(delta), 0) FROM ledger_entries WHERE account_id = :a")
    return int((await session.execute(q, {"a": account_id})).scalar_one())
