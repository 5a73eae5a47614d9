"""Tracking and its updates feed, viral alerts, credits and top-ups."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.billing.pricing import get_pricing
from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.auth import check_csrf
from sors.console.pages_posts import _idempotency
from sors.console.pages_search import _number
from sors.console.render import outcome, page, redirect
from sors.console.routing import User, console_router

router = console_router()
ALERT_FIELDS = ("minOutlierScore", "scoreWindow", "postAgeDays", "expiresInDays", "sendHour",
                "timezone", "frequency")


@router.get("/tracking")
async def tracking(request: Request, user: User, updates: str | None = None) -> Response:
    entries = await apicall.call(request, user.principal, "GET", "/api/v1/tracking")
    feed = None
    if updates:  # reading the feed advances its cursor, so only on request
        feed = await apicall.call(request, user.principal, "GET", "/api/v1/tracking/updates",
                                  params={"limit": 50})
    return page(request, "tracking.html.j2", title="Tracking", result=entries,
                entries=entries.data["results"] if entries.ok else [],
                feed=feed.data if feed is not None and feed.ok else None, asked=bool(updates))


@router.get("/alerts")
async def alerts(request: Request, user: User, edit: str | None = None) -> Response:
    result = await apicall.call(request, user.principal, "GET", "/api/v1/alerts")
    rows = result.data["results"] if result.ok else []
    editing = next((a for a in rows if a["alertId"] == edit), None)
    return page(request, "alerts.html.j2", title="Viral alerts", result=result, alerts=rows,
                editing=editing, form={})


def _alert_body(form: dict[str, str]) -> dict[str, BodyValue]:
    body: dict[str, BodyValue] = {"email": form.get("email", "")}
    if form.get("profileId"):
        body["profileId"] = form["profileId"]
    else:
        body["platform"] = form.get("platform", "")
        body["handle"] = form.get("handle", "")
    for name in ALERT_FIELDS:
        value = form.get(name, "").strip()
        if value:
            numeric = name in ("minOutlierScore", "postAgeDays", "expiresInDays", "sendHour")
            body[name] = _number(value) if numeric else value
    return body


@router.post("/alerts")
async def save_alert(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "POST", "/api/v1/alerts",
                                json=_alert_body(form), idempotency_key=_idempotency(form))
    if result.ok:
        verb = "created" if result.data["created"] else "updated"
        return redirect(request, "/app/alerts", outcome(f"Alert {verb}", result))
    listed = await apicall.call(request, user.principal, "GET", "/api/v1/alerts")
    return page(request, "alerts.html.j2", status=result.status, title="Viral alerts",
                result=result, alerts=listed.data["results"] if listed.ok else [],
                editing=None, form=form)


@router.post("/alerts/{alert_id}/delete")
async def delete_alert(request: Request, user: User, alert_id: str) -> Response:
    await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "DELETE", f"/api/v1/alerts/{alert_id}")
    return redirect(request, "/app/alerts", outcome("Alert deleted", result))


@router.get("/credits")
async def credits(request: Request, user: User, before: str | None = None) -> Response:
    balance = await apicall.call(request, user.principal, "GET", "/api/v1/credits")
    ledger = await apicall.call(request, user.principal, "GET", "/api/v1/credits/ledger",
                                params={"limit": 25, "before": before})
    # The operator's account also sees the data sources' status (404 for any other).
    sources = await apicall.call(request, user.principal, "GET", "/api/v1/sources")
    pricing = get_pricing()
    return page(request, "credits.html.j2", title="Credits", result=balance,
                balance=balance.data if balance.ok else None,
                ledger=ledger.data if ledger.ok else None,
                sources=sources.data if sources.ok else None,
                packs=list(pricing.packs.values()), skills=list(pricing.skills.values()))


@router.post("/credits/topup")
async def topup(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "POST", "/api/v1/credits/topup",
                                json={"packId": form.get("packId", "")},
                                idempotency_key=_idempotency(form))
    if result.ok:
        # The provider's own checkout (the local page in the demo, Stripe otherwise).
        return redirect(request, result.data["checkoutUrl"])
    return redirect(request, "/app/credits", outcome("Top-up", result))
