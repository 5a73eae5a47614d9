"""Money: charges, refunds, grants and top-ups, each one guarded statement plus its ledger
row in the caller's transaction. Amounts are integer credits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import repository as repo
from sors.billing.errors import InsufficientCredits, SpendCapReached
from sors.billing.models import ChargeRequest, LedgerEntry
from sors.billing.pricing import get_pricing
from sors.billing.schemas import CreditsEvent, ledger_entry
from sors.events import service as events
from sors.kit.ids import new_id
from sors.kit.metrics import CREDITS


@dataclass(frozen=True)
class Movement:
    entry_id: str | None  # None when nothing moved (0 credits, or already applied)
    amount: int
    balance: int


async def charge(session: AsyncSession, req: ChargeRequest) -> Movement:
    """Take `req.amount` credits or raise InsufficientCredits (SpendCapReached when the
    key's daily cap would be passed); never below zero, never past the cap.

    One statement (`repo.charge`): both guards, the debit and its ledger row. Concurrent
    charges serialise on the account row; the lock lasts until the caller's commit.
    """
    if req.amount < 0:
        raise ValueError("charge amount must be >= 0")
    if req.amount == 0:
        return Movement(None, 0, await repo.balance(session, req.account_id))
    day = req.at.astimezone(UTC).date()
    entry_id = new_id("led")
    charged = await repo.charge(session, req, entry_id=entry_id, day=day)
    return await _charged(session, charged, req, entry_id=entry_id, day=day)


async def _charged(
    session: AsyncSession, charged: repo.Charge, req: ChargeRequest, *, entry_id: str, day: date
) -> Movement:
    """After the charge statement: its refusal raised, or the movement (and credits.low)."""
    if charged.balance is None:
        if charged.cap_refused and req.key_id is not None:
            cap, spent = await repo.key_spend(session, req.key_id, day)
            raise SpendCapReached(required=req.amount, cap=cap or 0, spent_today=spent,
                                  balance=await repo.balance(session, req.account_id))
        raise InsufficientCredits(required=req.amount,
                                  balance=await repo.balance(session, req.account_id))
    new_balance = charged.balance
    CREDITS.labels(req.skill).inc(req.amount)
    low = charged.low_threshold
    if low is not None and new_balance < low <= new_balance + req.amount:
        # credits.low, in this transaction: the charge took the balance from at or above the
        # account's threshold (the one the charge statement itself read) to below it.
        entry = LedgerEntry(
            id=entry_id, account_id=req.account_id, kind="charge", delta=-req.amount,
            balance_after=new_balance, reason=req.reason or req.skill, skill=req.skill,
            request_id=req.request_id, job_ref=req.job_ref, created_at=req.at,
        )
        await _announce(session, "credits.low", entry, threshold=low)
    return Movement(entry_id, req.amount, new_balance)


class RideAlong:
    """A paid read's charge, sent inside the read's first statement on the driver connection:
    the read passes it to `kit.db.fetch_one(..., ride_along=...)` — one statement and one
    round trip fewer for the cheapest paid calls. The same guarded statement as `charge`, in
    the same transaction, so the money rules are unchanged: a read that ends in an error is
    rolled back with its charge, a refused charge becomes the 402 after the work (as a
    charge at the end does), and the transaction commits without waiting for the WAL flush
    (a paid read's only write is its charge). A read that never passes it on is charged the
    ordinary way."""

    def __init__(self, req: ChargeRequest) -> None:
        self.request = req
        self.day = req.at.astimezone(UTC).date()
        self.entry_id = new_id("led")
        self.outcome: repo.Charge | None = None  # set once the statement ran

    def joined(
        self, sql: str, params: Mapping[str, object]
    ) -> tuple[str, Mapping[str, object]]:
        if self.outcome is not None:
            raise RuntimeError("a charge rides along one statement only")
        return repo.ride_along_sql(sql), {
            **params, **repo.ride_along_params(self.request, entry_id=self.entry_id, day=self.day)
        }

    def taken(self, row: dict[str, Any] | None) -> dict[str, Any] | None:
        assert row is not None  # the read is LEFT JOINed to the charge: always one row
        self.outcome, read = repo.ride_along_outcome(row)
        return read


def ride_along(req: ChargeRequest) -> RideAlong | None:
    """A paid read's charge, to be carried by the read's first statement (see RideAlong)."""
    return RideAlong(req) if req.amount > 0 and req.read_only else None


async def settle_ride(session: AsyncSession, ride: RideAlong) -> Movement:
    """The end of a charge that rode along: its refusal raised, or its movement."""
    assert ride.outcome is not None
    return await _charged(session, ride.outcome, ride.request, entry_id=ride.entry_id,
                          day=ride.day)


async def _credit(
    session: AsyncSession,
    account_id: str,
    amount: int,
    *,
    kind: str,
    reason: str,
    now: datetime,
    refund_of: str | None = None,
    external_ref: str | None = None,
    skill: str | None = None,
    job_ref: str | None = None,
    request_id: str | None = None,
) -> Movement:
    if amount <= 0:
        raise ValueError("credit amount must be > 0")
    # Lock the account first so the ledger row and the balance move together and a racing
    # duplicate (same refund_of / external_ref) waits, then finds the unique key taken.
    current = await repo.lock_balance(session, account_id)
    if current is None:
        raise LookupError(f"no account {account_id}")
    entry = LedgerEntry(
        id=new_id("led"), account_id=account_id, kind=kind, delta=amount,
        balance_after=current + amount, reason=reason, skill=skill, refund_of=refund_of,
        external_ref=external_ref, job_ref=job_ref, request_id=request_id, created_at=now,
    )
    if not await repo.insert_entry(session, entry):
        return Movement(None, 0, current)
    moved = Movement(entry.id, amount, await repo.credit(session, account_id, amount))
    if kind in ("topup", "grant"):
        await _announce(session, "credits.added", entry)  # in this transaction
    return moved


async def grant(
    session: AsyncSession,
    account_id: str,
    amount: int,
    *,
    reason: str,
    now: datetime,
    kind: str = "grant",
    external_ref: str | None = None,
    request_id: str | None = None,
) -> Movement:
    """Add credits (grant, top-up, adjustment) at `now`. With `external_ref`, at most once."""
    return await _credit(
        session, account_id, amount, kind=kind, reason=reason, now=now,
        external_ref=external_ref, request_id=request_id,
    )


async def refund_charge(
    session: AsyncSession, charge_entry_id: str, *, reason: str, now: datetime
) -> Movement:
    """Return a charge in full, exactly once: a second call moves nothing."""
    entry = await repo.get_entry(session, charge_entry_id)
    if entry is None or entry.kind != "charge":
        raise LookupError(f"no charge {charge_entry_id}")
    return await _credit(
        session, entry.account_id, -entry.delta, kind="refund", reason=reason, now=now,
        refund_of=entry.id, skill=entry.skill, job_ref=entry.job_ref,
    )


async def refund_job(
    session: AsyncSession, job_ref: str, *, reason: str, now: datetime
) -> Movement | None:
    """Refund the charge recorded for a job, if any, exactly once."""
    entry = await repo.charge_for_job(session, job_ref)
    if entry is None:
        return None
    return await refund_charge(session, entry.id, reason=reason, now=now)


async def refund_job_part(
    session: AsyncSession, job_ref: str, *, keep: int, reason: str, now: datetime
) -> Movement | None:
    """Return what a job's charge exceeds `keep` by (a job that turned out to cost less),
    exactly once: it is the charge's one refund, so nothing more is refunded later."""
    entry = await repo.charge_for_job(session, job_ref)
    if entry is None or -entry.delta <= keep:
        return None
    return await _credit(
        session, entry.account_id, -entry.delta - keep, kind="refund", reason=reason, now=now,
        refund_of=entry.id, skill=entry.skill, job_ref=entry.job_ref,
    )


async def cap_remaining_today(session: AsyncSession, key_id: str, now: datetime) -> int | None:
    """Credits `key_id` may still be charged on `now`'s UTC day; None: no cap."""
    cap, spent = await repo.key_spend(session, key_id, now.astimezone(UTC).date())
    return None if cap is None else max(0, cap - spent)


async def balance(session: AsyncSession, account_id: str) -> int:
    return await repo.balance(session, account_id)


async def _announce(
    session: AsyncSession, type_: str, entry: LedgerEntry, *, threshold: int | None = None
) -> None:
    """`credits.added` / `credits.low` about the ledger row `entry` (not in the session)."""
    pricing = get_pricing()
    data = CreditsEvent(
        balance=entry.balance_after,
        balanceUsd=float(pricing.to_usd(entry.balance_after)),
        usdPerCredit=float(pricing.usd_per_credit),
        entry=ledger_entry(entry),
    )
    if threshold is not None:
        data.threshold = threshold
    await events.emit(session, entry.account_id, type_,
                      data.model_dump(mode="json", exclude_unset=True), at=entry.created_at)
