"""Money: charges, refunds, grants and top-ups, each one guarded statement plus its ledger
row in the caller's transaction. Amounts are integer credits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import repository as repo
from sors.kit import clock
from sors.kit.db import RIDE_ALONG
from sors.kit.errors import InsufficientCredits, SpendCapReached
from sors.kit.ids import new_id
from sors.kit.metrics import CREDITS
from sors.webhooks import events as webhook_events


@dataclass(frozen=True)
class Movement:
    entry_id: str | None  # None when nothing moved (0 credits, or already applied)
    amount: int
    balance: int


async def charge(
    session: AsyncSession,
    account_id: str,
    amount: int,
    *,
    skill: str,
    reason: str | None = None,
    request_id: str | None = None,
    job_ref: str | None = None,
    key_id: str | None = None,
    only_write: bool = False,
) -> Movement:
    """Take `amount` credits or raise InsufficientCredits (SpendCapReached when `key_id`'s
    daily cap would be passed); never below zero, never past the cap.

    One statement (`repo.charge`): both guards, the debit and its ledger row. Concurrent
    charges serialise on the account row; the lock lasts until the caller's commit.

    `only_write`: the caller's transaction writes nothing but this charge (a paid read). It
    then commits asynchronously (no wait for the WAL flush, which on a busy disk costs more
    than the whole read). Atomicity and order are unchanged — the balance still equals the
    ledger, nothing goes below zero — only a database crash within the last fraction of a
    second can forget such a charge, together with nothing else: the caller got a read free.
    Anything that creates work (jobs, tracking) commits durably.
    """
    if amount < 0:
        raise ValueError("charge amount must be >= 0")
    if amount == 0:
        return Movement(None, 0, await repo.balance(session, account_id))
    day = clock.now().astimezone(UTC).date()
    entry_id = new_id("led")
    charged = await repo.charge(
        session, account_id, amount, entry_id=entry_id, reason=reason or skill, skill=skill,
        request_id=request_id, job_ref=job_ref, key_id=key_id, day=day, lazy=only_write,
    )
    return await _charged(session, charged, account_id, amount, entry_id=entry_id,
                          reason=reason or skill, skill=skill, request_id=request_id,
                          job_ref=job_ref, key_id=key_id, day=day)


async def _charged(
    session: AsyncSession, charged: repo.Charge, account_id: str, amount: int, *,
    entry_id: str, reason: str, skill: str, request_id: str | None, job_ref: str | None,
    key_id: str | None, day: date,
) -> Movement:
    """After the charge statement: its refusal raised, or the movement (and credits.low)."""
    if charged.balance is None:
        if charged.cap_refused and key_id is not None:
            cap, spent = await repo.key_spend(session, key_id, day)
            raise SpendCapReached(required=amount, cap=cap or 0, spent_today=spent,
                                  balance=await repo.balance(session, account_id))
        raise InsufficientCredits(required=amount, balance=await repo.balance(session, account_id))
    new_balance = charged.balance
    CREDITS.labels(skill).inc(amount)
    entry = {
        "id": entry_id, "account_id": account_id, "kind": "charge", "delta": -amount,
        "balance_after": new_balance, "reason": reason, "skill": skill,
        "request_id": request_id, "job_ref": job_ref,
    }
    # credits.low, in this transaction
    await webhook_events.ledger_entry(session, entry, low_threshold=charged.low_threshold)
    return Movement(entry_id, amount, new_balance)


class RideAlong:
    """A paid read's charge, sent inside the read's first statement on the driver connection
    (`kit.db.fetch_one` takes it from the session): one statement and one round trip fewer
    for the cheapest paid calls. The same guarded statement as `charge`, in the same
    transaction, so the money rules are unchanged: a read that ends in an error is rolled
    back with its charge, a refused charge becomes the 402 after the work (as a charge at
    the end does), and the transaction commits without waiting for the WAL flush (a paid
    read's only write is its charge)."""

    def __init__(self, account_id: str, amount: int, *, skill: str, request_id: str | None,
                 key_id: str | None) -> None:
        self.account_id, self.amount, self.skill = account_id, amount, skill
        self.request_id, self.key_id = request_id, key_id
        self.day = clock.now().astimezone(UTC).date()
        self.entry_id = new_id("led")
        self.outcome: repo.Charge | None = None  # set once the statement ran

    def joined(self, sql: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return repo.ride_along_sql(sql), {**params, **repo.ride_along_params(
            self.account_id, self.amount, entry_id=self.entry_id, skill=self.skill,
            request_id=self.request_id, key_id=self.key_id, day=self.day)}

    def taken(self, row: dict[str, Any] | None) -> dict[str, Any] | None:
        assert row is not None  # the read is LEFT JOINed to the charge: always one row
        self.outcome, read = repo.ride_along_outcome(row)
        return read


def offer_ride(session: AsyncSession, account_id: str, amount: int, *, skill: str,
               request_id: str | None, key_id: str | None) -> RideAlong | None:
    """Let a paid read's first driver statement carry its charge (see RideAlong)."""
    if amount <= 0:
        return None
    ride = RideAlong(account_id, amount, skill=skill, request_id=request_id, key_id=key_id)
    session.info[RIDE_ALONG] = ride
    return ride


def withdraw_ride(session: AsyncSession) -> None:
    """The offer ends with the work: a read that ran no driver statement is charged the
    ordinary way (a ride left on the session would ride along that very charge)."""
    session.info.pop(RIDE_ALONG, None)


async def settle_ride(session: AsyncSession, ride: RideAlong) -> Movement:
    """The end of a charge that rode along: its refusal raised, or its movement."""
    assert ride.outcome is not None
    return await _charged(session, ride.outcome, ride.account_id, ride.amount,
                          entry_id=ride.entry_id, reason=ride.skill, skill=ride.skill,
                          request_id=ride.request_id, job_ref=None, key_id=ride.key_id,
                          day=ride.day)


async def _credit(
    session: AsyncSession,
    account_id: str,
    amount: int,
    *,
    kind: str,
    reason: str,
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
    entry_id = new_id("led")
    entry = {
        "id": entry_id, "account_id": account_id, "kind": kind, "delta": amount,
        "balance_after": current + amount, "reason": reason, "skill": skill,
        "refund_of": refund_of, "external_ref": external_ref, "job_ref": job_ref,
        "request_id": request_id,
    }
    if not await repo.insert_entry(session, entry):
        return Movement(None, 0, current)
    moved = Movement(entry_id, amount, await repo.credit(session, account_id, amount))
    await webhook_events.ledger_entry(session, entry)  # credits.added, in this transaction
    return moved


async def grant(
    session: AsyncSession,
    account_id: str,
    amount: int,
    *,
    reason: str,
    kind: str = "grant",
    external_ref: str | None = None,
    request_id: str | None = None,
) -> Movement:
    """Add credits (grant, top-up, adjustment). With `external_ref`, at most once."""
    return await _credit(
        session, account_id, amount, kind=kind, reason=reason, external_ref=external_ref,
        request_id=request_id,
    )


async def refund_charge(session: AsyncSession, charge_entry_id: str, *, reason: str) -> Movement:
    """Return a charge in full, exactly once: a second call moves nothing."""
    entry = await repo.get_entry(session, charge_entry_id)
    if entry is None or entry.kind != "charge":
        raise LookupError(f"no charge {charge_entry_id}")
    return await _credit(
        session, entry.account_id, -entry.delta, kind="refund", reason=reason,
        refund_of=entry.id, skill=entry.skill, job_ref=entry.job_ref,
    )


async def refund_job(session: AsyncSession, job_ref: str, *, reason: str) -> Movement | None:
    """Refund the charge recorded for a job, if any, exactly once."""
    entry = await repo.charge_for_job(session, job_ref)
    if entry is None:
        return None
    return await refund_charge(session, entry.id, reason=reason)


async def cap_remaining_today(session: AsyncSession, key_id: str) -> int | None:
    """Credits `key_id` may still be charged today (UTC, service clock); None: no cap."""
    cap, spent = await repo.key_spend(session, key_id, clock.now().astimezone(UTC).date())
    return None if cap is None else max(0, cap - spent)


async def balance(session: AsyncSession, account_id: str) -> int:
    return await repo.balance(session, account_id)
