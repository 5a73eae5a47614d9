"""Subscriptions over HTTP: /api/v1/subscriptions (free), and the local provider's own
subscribe page (/subscribe/{id})."""

from __future__ import annotations

from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit import clock
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import JSONResponse
from sors.kit.routing import SorsRoute, get_session
from sors.payments.providers import PaymentProvider, get_provider
from sors.payments.router import page
from sors.subscriptions import limits, service, state
from sors.subscriptions import repository as repo
from sors.subscriptions.plans import get_plan
from sors.subscriptions.schemas import (
    PlanChoice,
    PortalLink,
    SubscriptionCheckoutLink,
    SubscriptionOut,
)

Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
CheckoutId = Annotated[str, Path(min_length=4, max_length=64)]


def _provider(request: Request) -> PaymentProvider:
    return get_provider(request.app.state.settings)


def _skill(key: str) -> dict[str, Any]:
    return {"x-sors-skill": key}


async def status_view(session: AsyncSession, account_id: str) -> dict[str, Any]:
    sub = await repo.get_by_account(session, account_id)
    standing = await limits.standing(session, account_id, clock.now())
    return {
        **state.view(sub),
        "appliedPlanId": standing.plan.plan_id if standing.plan else None,
        "appliedBecause": standing.source,
        "apiSpendUsd30d": float(standing.spend_usd_30d),
        "limits": {
            "watchlistLimit": standing.watchlist_limit,
            "followedProfileLimit": standing.followed_profile_limit,
            "seats": standing.seats,
        },
    }


api = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["subscriptions"])


@api.post(
    "/subscriptions/checkout",
    summary="Subscribe to a plan: a checkout link (free)",
    description="A hosted checkout link for a plan billed monthly or yearly, valid 24 hours. "
    "A first subscription starts with the free trial of GET /api/v1/pricing (no credits "
    "until the first paid invoice); every paid invoice grants the plan's monthly credits, "
    "twelve months of them at once on yearly billing. 409 `subscription_exists` while one "
    "runs (change it with POST /api/v1/subscriptions/change); 404 when the operator sells no "
    "plans.",
    openapi_extra=_skill("create_subscription_checkout"),
    response_model=SubscriptionCheckoutLink,
    responses=problems(404, 409, 503, body=True),
)
async def create_checkout(
    request: Request, session: Session, account_id: AccountId, body: PlanChoice
) -> JSONResponse:
    out = await service.create_checkout(
        session,
        _provider(request),
        request.app.state.settings,
        account_id=account_id,
        plan_id=body.planId,
        interval=body.interval,
        now=clock.now(),
    )
    return JSONResponse(out)


@api.get(
    "/subscriptions",
    summary="The account's subscription and the limits that apply (free)",
    description="The subscribed plan, its status and period, the credits granted this "
    "period, and which plan's limits apply and why: the subscription, or the plan the API "
    "spend of the last 30 days earns.",
    openapi_extra=_skill("get_subscription"),
    response_model=SubscriptionOut,
    responses=problems(),
)
async def get_subscription(session: Session, account_id: AccountId) -> JSONResponse:
    return JSONResponse(await status_view(session, account_id))


@api.post(
    "/subscriptions/cancel",
    summary="Cancel at the end of the period (free)",
    description="The plan, its limits and its credits stay until the period ends; then the "
    "subscription ends. Nothing is refunded. 404 without a subscription.",
    openapi_extra=_skill("cancel_subscription"),
    response_model=SubscriptionOut,
    responses=problems(404, 503),
)
async def cancel(request: Request, session: Session, account_id: AccountId) -> JSONResponse:
    await service.set_cancel(session, _provider(request), account_id, True, clock.now())
    return JSONResponse(await status_view(session, account_id))


@api.post(
    "/subscriptions/resume",
    summary="Take back a cancellation (free)",
    description="The subscription renews at the end of the period again.",
    openapi_extra=_skill("resume_subscription"),
    response_model=SubscriptionOut,
    responses=problems(404, 503),
)
async def resume(request: Request, session: Session, account_id: AccountId) -> JSONResponse:
    await service.set_cancel(session, _provider(request), account_id, False, clock.now())
    return JSONResponse(await status_view(session, account_id))


@api.post(
    "/subscriptions/change",
    summary="Change the plan or its interval now (free)",
    description="Prorated: the rest of the period costs the difference, invoiced at once, "
    "and its payment grants the difference in credits for the period. A downgrade grants "
    "nothing and takes nothing back; entries over the new plan's limits pause (the newest "
    "first) and resume on an upgrade.",
    openapi_extra=_skill("change_subscription"),
    response_model=SubscriptionOut,
    responses=problems(404, 503, body=True),
)
async def change(
    request: Request, session: Session, account_id: AccountId, body: PlanChoice
) -> JSONResponse:
    await service.change_plan(
        session,
        _provider(request),
        request.app.state.settings,
        account_id=account_id,
        plan_id=body.planId,
        interval=body.interval,
        now=clock.now(),
    )
    return JSONResponse(await status_view(session, account_id))


@api.post(
    "/subscriptions/portal",
    summary="The payment provider's billing portal (free)",
    description="A link to Stripe's customer portal (invoices, payment method); null with "
    "the local provider or before a first Stripe checkout.",
    openapi_extra=_skill("get_billing_portal"),
    response_model=PortalLink,
    responses=problems(503),
)
async def portal(request: Request, session: Session, account_id: AccountId) -> JSONResponse:
    url = await service.portal_url(
        session, _provider(request), request.app.state.settings, account_id
    )
    return JSONResponse({"url": url})


# ---- the local provider's subscribe page --------------------------------------------------

pages = APIRouter(route_class=SorsRoute, include_in_schema=False)


@pages.get("/subscribe/{checkoutId}")
async def subscribe_page(session: Session, checkoutId: CheckoutId) -> HTMLResponse:
    co = await service.get_checkout(session, checkoutId)
    if co is None or co.provider != "local":
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if co.status == "completed":
        return page("Subscribed", '<p>You are subscribed. <a href="/app/plan">Your plan</a></p>')
    if service.checkout_expired(co, clock.now()):
        return page("Checkout expired", "<p>This link has expired; start again.</p>", 410)
    plan = get_plan(co.plan_id)
    name = plan.name if plan else co.plan_id
    price = f"${co.price_cents / 100:,.2f} per {co.interval}"
    trial = (
        f"<p>The first {co.trial_days} days are free; the first payment is due after them.</p>"
        if co.trial_days
        else ""
    )
    return page(
        "Subscribe",
        f"<p>The <b>{escape(name)}</b> plan for <b>{escape(price)}</b>.</p>{trial}"
        f'<form method="post" action="/subscribe/{escape(co.id)}/pay">'
        '<button type="submit">Subscribe</button></form>'
        "<p><small>Local test checkout: no real payment is taken.</small></p>",
    )


@pages.post("/subscribe/{checkoutId}/pay")
async def subscribe_pay(session: Session, checkoutId: CheckoutId) -> HTMLResponse:
    outcome = await service.complete_local_checkout(session, checkoutId, clock.now())
    if outcome == "unknown":
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if outcome == "expired":
        return page("Checkout expired", "<p>This link has expired; nothing was charged.</p>", 410)
    if outcome == "already_completed":
        return page("Already subscribed", "<p>This checkout was already completed.</p>")
    if outcome == "already_subscribed":
        return page(
            "Already subscribed",
            '<p>This account already has a subscription; nothing was charged. '
            '<a href="/app/plan">Your plan</a></p>',
            409,
        )
    return page(
        "Subscribed",
        "<p>Your subscription has started.</p>"
        '<p><a href="/app/plan" id="back-to-console">Your plan</a></p>',
    )


@pages.get("/subscribe/{checkoutId}/done")
async def subscribe_done(session: Session, checkoutId: CheckoutId) -> HTMLResponse:
    co = await service.get_checkout(session, checkoutId)
    if co is None:
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if co.status != "completed":
        return page(
            "Subscription processing",
            "<p>We have not received the confirmation yet; reload this page in a few seconds.</p>",
        )
    return page("Subscribed", '<p>Thank you! <a href="/app/plan">Your plan</a></p>')


router = APIRouter()
router.include_router(api)
router.include_router(pages)
