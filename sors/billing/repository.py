"""Every query of the billing domain."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.models import LedgerEntry

# The guarded debit, with the calling key's daily spend cap as one more guard in the same
# statement: the key's spend row for the day is bumped only while it stays within the cap
# (concurrent charges through one key serialise on that row, each re-checking the total the
# previous one left), and the account is debited only when that bump happened (or the key
# has no cap). A refusal by either guard leaves the statement's other write to the caller's
# rollback. `capped` and `spent` say which guard refused.
_DEBIT = text(
    """
    WITH cap AS (
        SELECT daily_credit_cap AS cap FROM api_keys
        WHERE id = :key AND daily_credit_cap IS NOT NULL
    ), spend AS (
        INSERT INTO api_key_spend AS s (key_id, day, spent)
        SELECT :key, :day, :n FROM cap WHERE :n <= cap.cap
        ON CONFLICT (key_id, day) DO UPDATE SET spent = s.spent + EXCLUDED.spent
            WHERE s.spent + EXCLUDED.spent <= (SELECT cap FROM cap)
        RETURNING spent
    ), debit AS (
        UPDATE accounts SET balance = balance - :n
        WHERE id = :a AND balance >= :n
          AND (NOT EXISTS (SELECT 1 FROM cap) OR EXISTS (SELECT 1 FROM spend))
        RETURNING balance
    )
    SELECT (SELECT balance FROM debit) AS balance, EXISTS (SELECT 1 FROM cap) AS capped,
           (SELECT spent FROM spend) AS spent
    """
)
_LOCK = text("SELECT balance FROM accounts WHERE id = :a FOR UPDATE")
_CREDIT = text("UPDATE accounts SET balance = balance + :n WHERE id = :a RETURNING balance")


@dataclass(frozen=True)
class Debit:
    balance: int | None  # None: refused, nothing debited
    cap_refused: bool  # the key's daily cap refused it (else, when refused: the balance)


async def debit(
    session: AsyncSession, account_id: str, amount: int, *, key_id: str | None = None,
    day: date | None = None,
) -> Debit:
    """The guarded debit (see _DEBIT)."""
    params = {"n": amount, "a": account_id, "key": key_id, "day": day}
    balance, capped, spent = (await session.execute(_DEBIT, params)).one()
    if balance is not None:
        return Debit(int(balance), False)
    return Debit(None, bool(capped) and spent is None)


async def key_spend(session: AsyncSession, key_id: str, day: date) -> tuple[int | None, int]:
    """A key's daily cap and what it has spent on `day`."""
    row = (await session.execute(text(
        "SELECT k.daily_credit_cap, COALESCE(s.spent, 0) FROM api_keys k "
        "LEFT JOIN api_key_spend s ON s.key_id = k.id AND s.day = :day WHERE k.id = :key"
    ), {"key": key_id, "day": day})).first()
    return (None, 0) if row is None else (row[0], int(row[1]))


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
