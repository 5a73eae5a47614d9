"""The Plan and Team pages: the subscription, usage against the plan's limits, subscribe /
change / cancel / resume; the workspace's members, invite and remove — each an API call on
the signed-in key (a member's or viewer's key gets the API's own refusals)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.billing.pricing import get_pricing
from sors.billing.schemas import price_list
from sors.console import apicall
from sors.console.auth import check_csrf
from sors.console.pages_posts import _idempotency
from sors.console.render import outcome, page, redirect
from sors.console.routing import User, console_router

router = console_router()


@router.get("/plan")
async def plan(request: Request, user: User) -> Response:
    sub = await apicall.call(request, user.principal, "GET", "/api/v1/subscriptions")
    tracking = await apicall.call(request, user.principal, "GET", "/api/v1/tracking")
    entries = tracking.data["results"] if tracking.ok else []
    prices = price_list(get_pricing(), keyless_checkout_url=None).model_dump()
    return page(
        request, "plan.html.j2", title="Plan", result=sub,
        sub=sub.data if sub.ok else None, plans=prices["plans"],
        trial_days=prices["subscriptions"]["trialDays"],
        tracked=sum(1 for e in entries if e["startedBy"] == "user"),
        paused=sum(1 for e in entries if e["pausedReason"] == "plan_limit"),
    )


def _choice(form: dict[str, str]) -> dict[str, str]:
    return {"planId": form.get("planId", ""), "interval": form.get("interval", "month")}


@router.post("/plan/subscribe")
async def subscribe(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "POST", "/api/v1/subscriptions/checkout",
                                json=_choice(form), idempotency_key=_idempotency(form))
    if result.ok:  # the provider's checkout (the local page in the demo, Stripe otherwise)
        return redirect(request, result.data["checkoutUrl"])
    return redirect(request, "/app/plan", outcome("Subscribe", result))


@router.post("/plan/change")
async def change(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "POST", "/api/v1/subscriptions/change",
                                json=_choice(form), idempotency_key=_idempotency(form))
    return redirect(request, "/app/plan", outcome("Plan changed", result))


@router.post("/plan/{action}")
async def cancel_or_resume(request: Request, user: User, action: str) -> Response:
    form = await check_csrf(request, user)
    if action not in ("cancel", "resume", "portal"):
        return redirect(request, "/app/plan")
    result = await apicall.call(request, user.principal, "POST",
                                f"/api/v1/subscriptions/{action}",
                                idempotency_key=_idempotency(form))
    if action == "portal" and result.ok and result.data.get("url"):
        return redirect(request, result.data["url"])
    label = {"cancel": "Canceled at period end", "resume": "Resumed", "portal": "Billing portal"}
    return redirect(request, "/app/plan", outcome(label[action], result))


# ---- the Team page ------------------------------------------------------------------------


@router.get("/team")
async def team(request: Request, user: User) -> Response:
    listed = await apicall.call(request, user.principal, "GET", "/api/v1/members")
    sub = await apicall.call(request, user.principal, "GET", "/api/v1/subscriptions")
    return page(
        request, "team.html.j2", title="Team", result=listed,
        members=listed.data["results"] if listed.ok else [],
        seats=sub.data["limits"]["seats"] if sub.ok else None,
    )


@router.post("/team/invite")
async def invite(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(
        request, user.principal, "POST", "/api/v1/members",
        json={"email": form.get("email", ""), "role": form.get("role", "member")},
        idempotency_key=_idempotency(form),
    )
    return redirect(request, "/app/team", outcome("Invitation emailed", result))


@router.post("/team/{member_id}/remove")
async def remove(request: Request, user: User, member_id: str) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "DELETE",
                                f"/api/v1/members/{member_id}",
                                idempotency_key=_idempotency(form))
    return redirect(request, "/app/team", outcome("Member removed, their keys revoked", result))
