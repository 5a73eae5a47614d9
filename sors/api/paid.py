"""The paid unit of work: the whole money rule of an HTTP call in one place.

One session per request, committed only when the endpoint answered 2xx (rolled back
otherwise) and, for billable routes, charged inside that same transaction just before the
commit. So a call is charged only on success, a charge the balance cannot cover (402) undoes
everything the call did, and a failed commit charges nothing.

Billable routes declare their skill with `openapi_extra={"x-sors-skill": key}`; the
endpoint may change the cost (e.g. 0 for a repeated request) through its `Bill`
(`sors.billing.deps`).

`X-Dry-Run: true` on a billable route runs the endpoint for real inside its transaction,
reads the bill it would pay, rolls everything back and answers the quote instead: the input
is validated and priced by the very code a real call runs, and nothing is charged, queued
or written (after-commit hooks never run, jobs and their NOTIFY vanish with the rollback).

Routes that only read add `"x-sors-read": True` (a read-only charge, `ChargeRequest.read_only`):
their bill carries a `RideAlong` that the endpoint may pass to its first driver statement
(`kit.db.fetch_one(..., ride_along=bill.ride)`) — the same guarded statement and
transaction, one round trip fewer — settled here after a 2xx; a read that does not pass it
on is charged as any other call.

There is no balance check before the work: the charge (one guarded statement with its
ledger row) is the check. A call the balance cannot cover does its work, is refused with 402
at the charge and rolled back, so nothing it did survives; every call that can pay saves a
round trip, and the account row is locked only from the charge to the commit.
"""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from sors.accounts.permissions import Action, check
from sors.billing import service as billing
from sors.billing.deps import Bill
from sors.billing.errors import InsufficientCredits, SpendCapReached
from sors.billing.models import ChargeRequest
from sors.billing.pricing import get_pricing
from sors.kit.errors import Unauthorized, ValidationFailed
from sors.kit.principal import Principal
from sors.kit.responses import JSONResponse
from sors.kit.routing import (
    Endpoint,
    RequestContext,
    RouteSpec,
    UnitOfWork,
    context_of,
    open_context,
    refuse_unknown_query,
    runtime_of,
)


class PaidUnitOfWork(UnitOfWork):
    async def run(self, endpoint: Endpoint, request: Request, spec: RouteSpec) -> Response:
        principal: Principal | None = getattr(request.state, "principal", None)
        if principal is not None:
            authorise(request, spec, principal)
        dry_run = wants_dry_run(request.headers.get("x-dry-run"))
        if spec.skill is None or (dry_run and not is_billable(spec.skill)):
            if dry_run:
                raise ValidationFailed.single(
                    "X-Dry-Run", "Only billable operations take a dry run; this one is free."
                )
            return await super().run(endpoint, request, spec)
        bill = Bill(spec.skill, get_pricing().cost(spec.skill))
        request.state.bill = bill
        if dry_run:
            async with runtime_of(request).database.sessionmaker() as session:
                ctx = open_context(request, session)
                refuse_unknown_query(request, spec.known_query)
                return await _quote(endpoint, request, ctx, bill, principal)
        if spec.read_only and principal is not None:
            endpoint = _offering_ride(endpoint, bill, principal, spec)
        response = await super().run(endpoint, request, spec)
        if bill.balance is not None:
            response.headers.update(bill.headers())
        return response

    async def before_commit(self, session: AsyncSession, request: Request, spec: RouteSpec) -> None:
        """The charge, last in the transaction (`run` made the bill)."""
        bill: Bill | None = getattr(request.state, "bill", None)
        principal: Principal | None = getattr(request.state, "principal", None)
        if bill is not None and principal is not None:
            moved = await _settle(session, request, bill, principal, spec)
            bill.charged, bill.balance = moved.amount, moved.balance

    async def after_rollback(self, session: AsyncSession, request: Request, exc: Exception) -> None:
        """Nothing was charged; the problem response still tells the balance."""
        bill: Bill | None = getattr(request.state, "bill", None)
        principal: Principal | None = getattr(request.state, "principal", None)
        if bill is None or principal is None:
            return
        bill.charged = 0
        if isinstance(exc, (InsufficientCredits, SpendCapReached)):
            bill.balance = exc.balance
        elif not isinstance(exc, Unauthorized):
            bill.balance = await billing.balance(session, principal.account_id)


def _charge_request(
    request: Request, bill: Bill, principal: Principal, spec: RouteSpec
) -> ChargeRequest:
    """The request's charge, at the request's time (its context's `now`)."""
    return ChargeRequest(
        account_id=principal.account_id, amount=bill.cost, skill=bill.skill,
        at=context_of(request).now, request_id=getattr(request.state, "request_id", None),
        job_ref=bill.job_ref, key_id=principal.key_id, read_only=spec.read_only,
    )


def _offering_ride(
    endpoint: Endpoint, bill: Bill, principal: Principal, spec: RouteSpec
) -> Endpoint:
    """`endpoint`, with the bill's charge on offer to ride along its first read: made once
    the request's context is open, so the charge carries the request's time."""

    async def offering(request: Request) -> Response:
        bill.ride = billing.ride_along(_charge_request(request, bill, principal, spec))
        return await endpoint(request)

    return offering


async def _settle(
    session: AsyncSession, request: Request, bill: Bill, principal: Principal, spec: RouteSpec
) -> billing.Movement:
    """The charge after the work: the one that rode along the read, or one statement now."""
    ride = bill.ride
    if ride is not None and ride.outcome is not None:
        if (bill.cost, bill.job_ref) != (ride.request.amount, None):
            # The charge already ran at the offered price: never settle it at another (the
            # rollback undoes it).
            raise RuntimeError(f"{bill.skill}: the bill changed after its charge")
        return await billing.settle_ride(session, ride)
    return await billing.charge(session, _charge_request(request, bill, principal, spec))


def authorise(request: Request, spec: RouteSpec, principal: Principal) -> None:
    """The one authorisation rule (`accounts.permissions`) for what every route does: a paid
    call spends, any other change uses the workspace, a free GET reads. Routes that manage the
    workspace (keys, members, billing, webhooks) add their own action. On every door: the
    console and MCP call the API in process."""
    if spec.skill is not None and is_billable(spec.skill):
        check(principal, Action.SPEND)
    elif request.method != "GET":
        check(principal, Action.USE)


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
    endpoint: Endpoint, request: Request, ctx: RequestContext, bill: Bill,
    principal: Principal | None,
) -> Response:
    session = ctx.session
    try:
        response = await endpoint(request)
        if response.status_code >= 400 or principal is None:
            return response
        balance = await billing.balance(session, principal.account_id)
        cap_left = await billing.cap_remaining_today(session, principal.key_id, ctx.now)
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
    return JSONResponse(quote, headers={**bill.headers(), "X-Dry-Run": "true"})
