"""The per-request unit of work.

`SorsRoute` opens one session per request, commits it only when the endpoint answered 2xx
(rolls back otherwise) and, for billable endpoints, charges inside that same transaction
just before the commit. So a call is charged only on success, a charge the balance cannot
cover (402) undoes everything the call did, and a failed commit charges nothing.

Billable routes declare their skill with `openapi_extra={"x-sors-skill": key}`; the
endpoint may change the cost (e.g. 0 for a repeated request) through the `Bill` dependency.

`X-Dry-Run: true` on a billable route runs the endpoint for real inside its transaction,
reads the bill it would pay, rolls everything back and answers the quote instead: the input
is validated and priced by the very code a real call runs, and nothing is charged, queued
or written (after-commit hooks never run, jobs and their NOTIFY vanish with the rollback).

Routes that only read add `"x-sors-read": True` (see `billing.service.charge`): their charge
is offered to ride along the read's first driver statement (`billing.service.RideAlong`,
taken by `kit.db.fetch_one`) — the same guarded statement and transaction, one round trip
fewer — and settled here after a 2xx; a read that never takes the offer is charged as
any other call.

There is no balance check before the work: the charge (`billing.charge`, one guarded
statement with its ledger row) is the check. A call the balance cannot cover does its work,
is refused with 402 at the charge and rolled back, so nothing it did survives; every call
that can pay saves a round trip, and the account row is locked only from the charge to the
commit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from sors.billing import service as billing
from sors.billing.pricing import get_pricing
from sors.kit.errors import (
    InsufficientCredits,
    SpendCapReached,
    Unauthorized,
    UnknownField,
    ValidationFailed,
)
from sors.kit.responses import JSONResponse
from sors.kit.schemas import unknown_field_message

AfterCommit = Callable[[], Awaitable[None]]


@dataclass
class Bill:
    skill: str
    cost: int
    job_ref: str | None = None
    charged: int = 0
    balance: int | None = None


@dataclass
class RequestContext:
    session: AsyncSession
    after_commit: list[AfterCommit] = field(default_factory=list)


class SorsRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        original = super().get_route_handler()
        extra: dict[str, Any] = self.openapi_extra or {}
        skill: str | None = extra.get("x-sors-skill")
        # A paid read: the charge is the only thing its transaction writes.
        read_only: bool = bool(extra.get("x-sors-read"))
        from sors.kit.openapi import query_names

        known_query = query_names(self)

        async def handler(request: Request) -> Response:
            db = request.app.state.db
            principal = getattr(request.state, "principal", None)
            bill: Bill | None = None
            dry_run = wants_dry_run(request.headers.get("x-dry-run"))
            if skill:
                cost = get_pricing().cost(skill)
                bill = Bill(skill, cost)
                request.state.bill = bill
            if dry_run and not (skill and is_billable(skill)):
                raise ValidationFailed.single(
                    "X-Dry-Run", "Only billable operations take a dry run; this one is free."
                )
            async with db.sessionmaker() as session:
                ctx = RequestContext(session)
                request.state.ctx = ctx
                if dry_run and bill is not None:
                    _refuse_unknown_query(request, known_query)
                    return await _quote(original, request, session, bill, principal)
                request_id = getattr(request.state, "request_id", None)
                ride = None
                if read_only and bill and principal:  # the charge may ride along the read
                    ride = billing.offer_ride(
                        session, principal.account_id, bill.cost, skill=bill.skill,
                        request_id=request_id, key_id=principal.key_id,
                    )
                try:
                    _refuse_unknown_query(request, known_query)
                    response = await original(request)
                    billing.withdraw_ride(session)
                    if response.status_code >= 400:
                        await session.rollback()
                        return response
                    if bill and principal:
                        if ride is not None and ride.outcome is not None:
                            if (bill.cost, bill.job_ref) != (ride.amount, None):
                                # The charge already ran at the offered price: never settle
                                # it at another (the rollback below undoes it).
                                raise RuntimeError(f"{skill}: the bill changed after its charge")
                            moved = await billing.settle_ride(session, ride)
                        else:
                            moved = await billing.charge(
                                session, principal.account_id, bill.cost, skill=bill.skill,
                                request_id=request_id, job_ref=bill.job_ref,
                                key_id=principal.key_id, only_write=read_only,
                            )
                        bill.charged, bill.balance = moved.amount, moved.balance
                    await session.commit()
                except Exception as exc:
                    billing.withdraw_ride(session)
                    await session.rollback()
                    if bill and principal:
                        bill.charged = 0
                        if isinstance(exc, (InsufficientCredits, SpendCapReached)):
                            bill.balance = exc.balance
                        elif not isinstance(exc, Unauthorized):
                            bill.balance = await billing.balance(session, principal.account_id)
                    raise
            for hook in ctx.after_commit:
                await hook()
            if bill and bill.balance is not None:
                response.headers.update(credit_headers(bill))
            return response

        return handler


def wants_dry_run(value: str | None) -> bool:
    if value is None:
        return False
    if value.strip().lower() in ("true", "1"):
        return True
    if value.strip().lower() in ("false", "0", ""):
        return False
    raise ValidationFailed.single("X-Dry-Run", "must be true or false")


def is_billable(skill: str) -> bool:
    s = get_pricing().skills.get(skill)
    return s is not None and (s.credits > 0 or any(v > 0 for v in s.extra.values()))


async def _quote(
    endpoint: Callable[[Request], Awaitable[Response]], request: Request,
    session: AsyncSession, bill: Bill, principal: Any,
) -> Response:
    try:
        response = await endpoint(request)
        if response.status_code >= 400 or principal is None:
            return response
        balance = await billing.balance(session, principal.account_id)
        cap_left = await billing.cap_remaining_today(session, principal.key_id)
    finally:
        await session.rollback()
    bill.charged, bill.balance = 0, balance
    quote = {
        "dryRun": True, "skill": bill.skill, "credits": bill.cost, "balance": balance,
        "balanceAfter": balance - bill.cost, "queuesJob": bill.job_ref is not None,
        # What the calling key may still spend today (null: no cap); the real call is
        # refused with spend_cap_reached when `credits` is above it.
        "keyCapRemaining": cap_left,
    }
    return JSONResponse(quote, headers={**credit_headers(bill), "X-Dry-Run": "true"})


def _refuse_unknown_query(request: Request, known: frozenset[str]) -> None:
    unknown = [name for name in request.query_params if name not in known]
    if unknown:
        names = sorted(known)
        raise UnknownField(
            [{"field": n, "message": unknown_field_message(n, names)} for n in unknown]
        )


def credit_headers(bill: Bill) -> dict[str, str]:
    return {"X-Credits-Charged": str(bill.charged), "X-Credits-Balance": str(bill.balance)}


# Dependencies are `async def`: FastAPI runs a plain `def` dependency in its thread pool,
# a thread hop per dependency per request (measured on the hot path: bench/overhead.py).
async def get_session(request: Request) -> AsyncSession:
    return request.state.ctx.session


async def get_context(request: Request) -> RequestContext:
    return context_of(request)


def context_of(request: Request) -> RequestContext:
    return request.state.ctx


async def get_bill(request: Request) -> Bill:
    return request.state.bill
