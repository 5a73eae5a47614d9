"""Subscriptions over HTTP: /api/v1/subscriptions (free), and the local provider's own
subscribe page (/subscribe/{id})."""

from __future__ import annotations

from html import escape
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.deps import allowed
from sors.accounts.permissions import Action
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import Context, RequestContext, SorsRoute, get_session
from sors.payments.providers import PaymentProvider, get_provider
from sors.payments.router import page
from sors.subscriptions import service
from sors.subscriptions.plans import get_plan
from sors.subscriptions.schemas import (
    PlanChoice,
    PortalLink,
    SubscriptionCheckoutLink,
    SubscriptionOut,
)
from sors.subscriptions.service import LocalCheckout

Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
# Subscribing, changing, cancelling and the billing portal: the workspace owner, uncapped.
Biller = allowed(Action.MANAGE_BILLING)
CheckoutId = Annotated[str, Path(min_length=4, max_length=64)]


def _provider(ctx: RequestContext) -> PaymentProvider:
    return get_provider(ctx.runtime.settings)


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


async def _status(ctx: RequestContext, account_id: str) -> SubscriptionOut:
    return await service.status(ctx.session, account_id, ctx.now, ctx.runtime.settings)


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
    responses=problems(403, 404, 409, 503, body=True),
)
async def create_checkout(
    ctx: Context, caller: Biller, body: PlanChoice
) -> SubscriptionCheckoutLink:
    return await service.create_checkout(
        ctx.session,
        _provider(ctx),
        ctx.runtime.settings,
        account_id=caller.account_id,
        plan_id=body.planId,
        interval=body.interval,
        now=ctx.now,
    )


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
async def get_subscription(ctx: Context, account_id: AccountId) -> SubscriptionOut:
    return await _status(ctx, account_id)


@api.post(
    "/subscriptions/cancel",
    summary="Cancel at the end of the period (free)",
    description="The plan, its limits and its credits stay until the period ends; then the "
    "subscription ends. Nothing is refunded. 404 without a subscription.",
    openapi_extra=_skill("cancel_subscription"),
    response_model=SubscriptionOut,
    responses=problems(403, 404, 503),
)
async def cancel(ctx: Context, caller: Biller) -> SubscriptionOut:
    await service.set_cancel(
        ctx.session, _provider(ctx), caller.account_id, True, ctx.now, ctx.runtime)
    return await _status(ctx, caller.account_id)


@api.post(
    "/subscriptions/resume",
    summary="Take back a cancellation (free)",
    description="The subscription renews at the end of the period again.",
    openapi_extra=_skill("resume_subscription"),
    response_model=SubscriptionOut,
    responses=problems(403, 404, 503),
)
async def resume(ctx: Context, caller: Biller) -> SubscriptionOut:
    await service.set_cancel(
        ctx.session, _provider(ctx), caller.account_id, False, ctx.now, ctx.runtime)
    return await _status(ctx, caller.account_id)


@api.post(
    "/subscriptions/change",
    summary="Change the plan or its interval now (free)",
    description="Prorated: the rest of the period costs the difference, invoiced at once, "
    "and its payment grants the difference in credits for the period. A downgrade grants "
    "nothing and takes nothing back; entries over the new plan's limits pause (the newest "
    "first) and resume on an upgrade.",
    openapi_extra=_skill("change_subscription"),
    response_model=SubscriptionOut,
    responses=problems(403, 404, 503, body=True),
)
async def change(ctx: Context, caller: Biller, body: PlanChoice) -> SubscriptionOut:
    await service.change_plan(
        ctx.session,
        _provider(ctx),
        ctx.runtime,
        account_id=caller.account_id,
        plan_id=body.planId,
        interval=body.interval,
        now=ctx.now,
    )
    return await _status(ctx, caller.account_id)


@api.post(
    "/subscriptions/portal",
    summary="The payment provider's billing portal (free)",
    description="A link to Stripe's customer portal (invoices, payment method); null with "
    "the local provider or before a first Stripe checkout.",
    openapi_extra=_skill("get_billing_portal"),
    response_model=PortalLink,
    responses=problems(403, 503),
)
async def portal(ctx: Context, caller: Biller) -> PortalLink:
    url = await service.portal_url(
        ctx.session, _provider(ctx), ctx.runtime.settings, caller.account_id
    )
    return PortalLink(url=url)


# ---- the local provider's subscribe page --------------------------------------------------

pages = APIRouter(route_class=SorsRoute, include_in_schema=False)


@pages.get("/subscribe/{checkoutId}")
async def subscribe_page(ctx: Context, checkoutId: CheckoutId) -> HTMLResponse:
    co = await service.get_checkout(ctx.session, checkoutId)
    if co is None or co.provider != "local":
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if co.status == "completed":
        return page("Subscribed", '<p>You are subscribed. <a href="/app/plan">Your plan</a></p>')
    if service.checkout_expired(co, ctx.now):
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
async def subscribe_pay(ctx: Context, checkoutId: CheckoutId) -> HTMLResponse:
    if not ctx.runtime.settings.local_payments_allowed:  # made before the setting changed
        return page("Payments unavailable",
                    "<p>This server takes no local payments; nothing was charged.</p>", 503)
    outcome = await service.complete_local_checkout(ctx.session, checkoutId, ctx.now, ctx.runtime)
    if outcome is LocalCheckout.UNKNOWN:
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if outcome is LocalCheckout.EXPIRED:
        return page("Checkout expired", "<p>This link has expired; nothing was charged.</p>", 410)
    if outcome is LocalCheckout.ALREADY_COMPLETED:
        return page("Already subscribed", "<p>This checkout was already completed.</p>")
    if outcome is LocalCheckout.ALREADY_SUBSCRIBED:
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
