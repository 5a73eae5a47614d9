"""Every query of the billing domain."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.models import ChargeRequest, LedgerEntry
from sors.events.repository import CREDITS_LOW_THRESHOLD_SQL
from sors.kit.db import fetch_one, plain_sql

# The whole charge in one statement, one round trip: the guards, the debit, its ledger row.
# - The key's daily spend cap: the key's spend row for the day is bumped only while it stays
#   within the cap (concurrent charges through one key serialise on that row, each
#   re-checking the total the previous one left).
# - The balance: the account is debited only when it covers the amount (concurrent charges
#   serialise on the account row, each re-checking the balance the previous one left) and
#   the cap bump happened (or the key has no cap). The account row stays locked from here
#   to the commit, nothing longer.
# - The ledger row is written from the debit's own result, so there is one only if there
#   is a debit.
# A refusal by either guard leaves the statement's other write to the caller's rollback;
# `capped` and `spent` say which guard refused. The statement also reads the account's
# `credits.low` webhook threshold (the charge needs it next) and, with `read_only` (a paid
# read whose only write is its charge), lets the transaction commit without waiting for the WAL
# flush (see `billing.service.charge`).
_CHARGE_CTES = """
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
        RETURNING id, balance
    ), entry AS (
        INSERT INTO ledger_entries
            (id, account_id, kind, delta, balance_after, reason, skill, request_id, job_ref,
             key_id, created_at)
        SELECT :entry_id, id, 'charge', -:n, balance, :reason, :skill, :request_id, :job_ref,
               :key, CAST(:at AS timestamptz)
        FROM debit
        RETURNING balance_after
    )"""
_CHARGE_RESULT = f"""
    SELECT (SELECT balance_after FROM entry) AS balance,
           EXISTS (SELECT 1 FROM cap) AS capped,
           (SELECT spent FROM spend) AS spent,
           ({CREDITS_LOW_THRESHOLD_SQL}) AS low_threshold,
           CASE WHEN :read_only THEN set_config('synchronous_commit', 'off', true) \
END AS read_only"""
_CHARGE = text(_CHARGE_CTES + _CHARGE_RESULT)
_CHARGE_SQL = plain_sql(_CHARGE)  # run through the session's driver (kit.db.driver)


# A paid read's charge riding along the read's own first statement (`ride_along_sql`): the
# same statement with its parameters prefixed `charge_` (the read's own names stay free),
# the read as a LEFT JOINed subquery — so there is always exactly one row carrying the
# charge's outcome, and `charge_found` says whether the read found anything. The CTEs run
# whatever the read finds; a read that ends in an error is rolled back with its charge.
def _prefixed(sql: str) -> str:
    return re.sub(r"(?<![:\w]):(\w+)", r":charge_\1", sql)


_RIDE_CTES = plain_sql(text(_prefixed(_CHARGE_CTES)))
_RIDE_RESULT = plain_sql(text(_prefixed(_CHARGE_RESULT)))
_RIDES: dict[str, str] = {}


def ride_along_sql(read_sql: str) -> str:
    """`read_sql` (driver form, at most one row wanted) with the charge riding along."""
    sql = _RIDES.get(read_sql)
    if sql is None:
        sql = _RIDES[read_sql] = (
            f"{_RIDE_CTES} SELECT c.balance AS charge_balance, c.capped AS charge_capped,"
            " c.spent AS charge_spent, c.low_threshold AS charge_low_threshold,"
            f" c.read_only AS charge_read_only, r.* FROM ({_RIDE_RESULT}) c LEFT JOIN"
            f" (SELECT true AS charge_found, r0.* FROM ({read_sql}) r0) r ON true"
        )
    return sql


def ride_along_params(req: ChargeRequest, *, entry_id: str, day: date) -> dict[str, object]:
    return {f"charge_{k}": v for k, v in _params(req, entry_id=entry_id, day=day).items()}


def ride_along_outcome(row: dict[str, Any]) -> tuple[Charge, dict[str, Any] | None]:
    """The charge's outcome and the read's own row (None: it found nothing)."""
    charge = _outcome(row["charge_balance"], row["charge_capped"], row["charge_spent"],
                      row["charge_low_threshold"])
    if row["charge_found"] is None:
        return charge, None
    return charge, {k: v for k, v in row.items() if not k.startswith("charge_")}


_LOCK = text("SELECT balance FROM accounts WHERE id = :a FOR UPDATE")
_CREDIT = text("UPDATE accounts SET balance = balance + :n WHERE id = :a RETURNING balance")
_BALANCE = text("SELECT balance FROM accounts WHERE id = :a")


@dataclass(frozen=True)
class Charge:
    balance: int | None  # None: refused, nothing debited and no ledger row
    cap_refused: bool  # the key's daily cap refused it (else, when refused: the balance)
    low_threshold: int | None = None  # the account's credits.low threshold, if it wants one


async def charge(
    session: AsyncSession, req: ChargeRequest, *, entry_id: str, day: date
) -> Charge:
    """The guarded debit and its ledger row (see _CHARGE)."""
    row = await fetch_one(session, _CHARGE_SQL, _params(req, entry_id=entry_id, day=day))
    assert row is not None  # a SELECT without FROM: always one row
    return _outcome(row["balance"], row["capped"], row["spent"], row["low_threshold"])


def _params(req: ChargeRequest, *, entry_id: str, day: date) -> dict[str, object]:
    return {
        "n": req.amount, "a": req.account_id, "key": req.key_id, "day": day,
        "entry_id": entry_id, "reason": req.reason or req.skill, "skill": req.skill,
        "request_id": req.request_id, "job_ref": req.job_ref, "read_only": req.read_only,
        "at": req.at,  # the service clock's (the simulated time in simulation)
    }


def _outcome(balance: Any, capped: Any, spent: Any, low_threshold: Any) -> Charge:
    if balance is not None:
        return Charge(int(balance), False, low_threshold)
    return Charge(None, bool(capped) and spent is None)


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
    row = (await session.execute(_BALANCE, {"a": account_id})).first()
    return 0 if row is None else int(row[0])


async def insert_entry(session: AsyncSession, e: LedgerEntry) -> bool:
    """Insert the ledger row `e` (built, not added to the session); False when its
    refund_of / external_ref was already used."""
    values = insert(LedgerEntry).values(
        id=e.id, account_id=e.account_id, kind=e.kind, delta=e.delta,
        balance_after=e.balance_after, reason=e.reason, skill=e.skill, request_id=e.request_id,
        job_ref=e.job_ref, key_id=e.key_id, refund_of=e.refund_of, external_ref=e.external_ref,
        created_at=e.created_at,
    )
    stmt = values.on_conflict_do_nothing().returning(LedgerEntry.id)
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


async def members_of_keys(session: AsyncSession, key_ids: list[str]) -> dict[str, str | None]:
    """The member each key belongs to (None: the account owner's key)."""
    if not key_ids:
        return {}
    q = text("SELECT id, member_id FROM api_keys WHERE id = ANY(:ids)")
    return {r[0]: r[1] for r in (await session.execute(q, {"ids": key_ids})).all()}
