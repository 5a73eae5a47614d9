"""Subscriptions: selling a plan (checkout), and what its holder changes (cancel, resume,
another plan, the provider's billing portal).

Credits are granted on every paid invoice, exactly once per invoice (`invoices`): a monthly
invoice grants the plan's monthly credits, a yearly one twelve months of them at once, a
trial's zero-amount invoice none; a plan change's (prorated) invoice grants the difference
between what the new plan gives for the period and what the period already got. The local
provider bills renewals itself (`invoices.renew_due`, run by the scheduler); Stripe's arrive
as `invoice.paid` webhooks (`sors.subscriptions.events`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import service as accounts
from sors.config import Settings
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound, Unavailable
from sors.kit.ids import new_id
from sors.kit.runtime import Runtime
from sors.payments.providers import (
    CheckoutCreationError,
    PaymentProvider,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
    SubscriptionUpdateError,
    stripe_subscriptions,
)
from sors.subscriptions import invoices, limits, state
from sors.subscriptions import repository as repo
from sors.subscriptions.errors import SubscriptionExists
from sors.subscriptions.models import Subscription, SubscriptionCheckout
from sors.subscriptions.plans import Plan, add_interval, get_plan, plan_or_422, trial_days
from sors.subscriptions.schemas import Interval, Limits, SubscriptionCheckoutLink, SubscriptionOut

CHECKOUT_LIFETIME = timedelta(hours=24)


class LocalCheckout(StrEnum):
    """What the local checkout page's "subscribe" button did."""

    COMPLETED = "completed"
    ALREADY_COMPLETED = "already_completed"
    ALREADY_SUBSCRIBED = "already_subscribed"  # another checkout of the account started one
    EXPIRED = "expired"
    UNKNOWN = "unknown"


def _unavailable(exc: Exception) -> Unavailable:
    err = Unavailable(f"The payment provider is not available; try again shortly. ({exc})")
    err.headers["Retry-After"] = "30"
    return err


# ---- checkout -----------------------------------------------------------------------------


async def create_checkout(
    session: AsyncSession,
    provider: PaymentProvider,
    settings: Settings,
    *,
    account_id: str,
    plan_id: str,
    interval: Interval,
    now: datetime,
) -> SubscriptionCheckoutLink:
    if not settings.subscriptions.enabled:
        raise NotFound("Plans are not sold here (SORS_SUBSCRIPTIONS_ENABLED is off).")
    plan = plan_or_422(plan_id)
    sub = await repo.get_by_account(session, account_id, lock=True)
    if sub is not None and sub.status != "canceled":
        raise SubscriptionExists(
            f"This account is subscribed to {sub.plan_id} ({sub.status}); change the plan with "
            "POST /api/v1/subscriptions/change."
        )
    trial = 0 if sub is not None and sub.trial_used else trial_days()
    account = await accounts.get_account(session, account_id)
    checkout_id = new_id("sco")
    base = settings.base_url.rstrip("/")
    try:
        link = await provider.create_subscription_checkout(
            SubscriptionCheckoutRequest(
                session_id=checkout_id,
                account_id=account_id,
                plan_id=plan.plan_id,
                interval=interval,
                price_id=settings.payments.stripe_prices.get(f"{plan.plan_id}_{interval}"),
                trial_days=trial,
                email=account.email if account else None,
                customer_id=sub.provider_customer_id if sub else None,
                success_url=f"{base}/subscribe/{checkout_id}/done",
                cancel_url=f"{base}/app/plan",
                expires_at=now + CHECKOUT_LIFETIME,
            )
        )
    except CheckoutCreationError as exc:
        raise _unavailable(exc) from exc
    row = SubscriptionCheckout(
        id=checkout_id,
        account_id=account_id,
        plan_id=plan.plan_id,
        interval=interval,
        trial_days=trial,
        price_cents=plan.price_cents(interval),
        provider=provider.name,
        provider_session_id=link.provider_session_id,
        checkout_url=link.checkout_url,
        status="open",
        created_at=now,
        expires_at=min(link.expires_at, now + CHECKOUT_LIFETIME),
    )
    await repo.add(session, row)
    return SubscriptionCheckoutLink(
        planId=plan.plan_id, interval=interval, priceUsd=row.price_cents / 100, trialDays=trial,
        checkoutUrl=link.checkout_url, expiresAt=isoformat(row.expires_at),
    )


async def get_checkout(session: AsyncSession, checkout_id: str) -> SubscriptionCheckout | None:
    return await repo.get_checkout(session, checkout_id)


def checkout_expired(co: SubscriptionCheckout, now: datetime) -> bool:
    return co.status == "expired" or (co.status == "open" and now >= co.expires_at)


async def complete_local_checkout(
    session: AsyncSession, checkout_id: str, now: datetime, rt: Runtime
) -> LocalCheckout:
    """The local checkout page's "subscribe" button: the subscription starts, in its trial
    when the account has not had one (no credits until the first paid invoice), else with
    its first paid invoice."""
    co = await repo.get_checkout(session, checkout_id, lock=True)
    if co is None or co.provider != "local":
        return LocalCheckout.UNKNOWN
    if co.status == "completed":
        return LocalCheckout.ALREADY_COMPLETED
    if checkout_expired(co, now):
        return LocalCheckout.EXPIRED
    running = await repo.get_by_account(session, co.account_id, lock=True)
    if running is not None and running.status != "canceled":
        return LocalCheckout.ALREADY_SUBSCRIBED
    co.status, co.completed_at = "completed", now
    plan = plan_or_422(co.plan_id)
    sub = await state.revive(session, co.account_id, "local", plan, co.interval, now)
    if co.trial_days > 0 and not sub.trial_used:
        sub.status, sub.trial_used = "trialing", True
        sub.trial_end = now + timedelta(days=co.trial_days)
        sub.current_period_start, sub.current_period_end = now, sub.trial_end
        amount = 0
    else:
        sub.status, sub.trial_end = "active", None
        sub.current_period_start = now
        sub.current_period_end = add_interval(now, co.interval)
        amount = co.price_cents
    await invoices.record_invoice(
        session,
        sub,
        provider="local",
        invoice_id=f"{sub.id}:{isoformat(now)}",
        plan=plan,
        interval=co.interval,
        amount_cents=amount,
        billing_reason="subscription_create",
        period=(sub.current_period_start, sub.current_period_end),
        now=now,
        rt=rt,
    )
    await state.plan_changed(session, sub, now, rt)
    return LocalCheckout.COMPLETED


# ---- state changes ------------------------------------------------------------------------

async def _current(session: AsyncSession, account_id: str) -> Subscription:
    sub = await repo.get_by_account(session, account_id, lock=True)
    if sub is None or sub.status == "canceled":
        raise NotFound(
            "This account has no subscription; start one with POST /api/v1/subscriptions/checkout."
        )
    return sub


def _apply_facts(sub: Subscription, facts: SubscriptionFacts | None) -> None:
    if facts is None:
        return
    if facts.cancel_at_period_end is not None:
        sub.cancel_at_period_end = facts.cancel_at_period_end
    if facts.period_end is not None:
        sub.current_period_start = facts.period_start or sub.current_period_start
        sub.current_period_end = facts.period_end


async def set_cancel(
    session: AsyncSession, provider: PaymentProvider, account_id: str, cancel: bool,
    now: datetime, rt: Runtime,
) -> Subscription:
    """Cancel at the period's end (True) or take that back (False). The plan stays until
    the period ends; nothing is refunded."""
    sub = await _current(session, account_id)
    if sub.provider_subscription_id is not None and sub.provider == provider.name:
        try:
            facts = await provider.update_subscription(
                sub.provider_subscription_id, cancel_at_period_end=cancel
            )
        except SubscriptionUpdateError as exc:
            raise _unavailable(exc) from exc
        _apply_facts(sub, facts)
    sub.cancel_at_period_end, sub.updated_at = cancel, now
    await state.plan_changed(session, sub, now, rt)
    return sub


async def change_plan(
    session: AsyncSession,
    provider: PaymentProvider,
    rt: Runtime,
    *,
    account_id: str,
    plan_id: str,
    interval: Interval,
    now: datetime,
) -> Subscription:
    """Move to another plan or interval now. Stripe prorates and invoices the difference at
    once (its invoice.paid grants the credit difference); the local provider does the same
    in one step. A downgrade grants nothing and takes nothing back."""
    plan = plan_or_422(plan_id)
    sub = await _current(session, account_id)
    old = get_plan(sub.plan_id)
    if sub.provider == "stripe" and sub.provider_subscription_id is not None:
        try:
            facts = await provider.update_subscription(
                sub.provider_subscription_id,
                price_id=rt.settings.payments.stripe_prices.get(f"{plan.plan_id}_{interval}")
                or stripe_subscriptions.lookup_key(plan.plan_id, interval),
                metadata=stripe_subscriptions.metadata(account_id, plan.plan_id, interval),
            )
        except SubscriptionUpdateError as exc:
            raise _unavailable(exc) from exc
        _apply_facts(sub, facts)
        sub.plan_id, sub.interval, sub.updated_at = plan.plan_id, interval, now
        await state.plan_changed(session, sub, now, rt)
        return sub
    new_period = interval != sub.interval
    sub.plan_id, sub.interval, sub.updated_at = plan.plan_id, interval, now
    if new_period or sub.current_period_start is None:
        sub.current_period_start, sub.current_period_end = now, add_interval(now, interval)
    if sub.status == "trialing":
        await state.plan_changed(session, sub, now, rt)
        return sub
    await invoices.record_invoice(
        session,
        sub,
        provider="local",
        invoice_id=f"{sub.id}:change:{isoformat(now)}",
        plan=plan,
        interval=interval,
        amount_cents=_proration_cents(old, plan, sub, now),
        billing_reason="subscription_create" if new_period else "subscription_update",
        period=(sub.current_period_start, sub.current_period_end),
        now=now,
        rt=rt,
    )
    await state.plan_changed(session, sub, now, rt)
    return sub


def _proration_cents(old: Plan | None, new: Plan, sub: Subscription, now: datetime) -> int:
    """What the rest of the period costs more on the new plan (never negative)."""
    start, end = sub.current_period_start, sub.current_period_end
    full = new.price_cents(sub.interval) - (old.price_cents(sub.interval) if old else 0)
    if start is None or end is None or end <= start or full <= 0:
        return max(full, 0)
    left = max(0.0, (end - now) / (end - start))
    return round(full * left)


async def portal_url(
    session: AsyncSession, provider: PaymentProvider, settings: Settings, account_id: str
) -> str | None:
    sub = await repo.get_by_account(session, account_id)
    if sub is None or sub.provider_customer_id is None or sub.provider != provider.name:
        return None
    try:
        return await provider.portal_url(
            sub.provider_customer_id, f"{settings.base_url.rstrip('/')}/app/plan"
        )
    except SubscriptionUpdateError as exc:
        raise _unavailable(exc) from exc


# ---- what the account has -----------------------------------------------------------------


async def status(
    session: AsyncSession, account_id: str, now: datetime, settings: Settings
) -> SubscriptionOut:
    """GET /subscriptions: the subscription, and which plan's limits apply and why."""
    sub = await repo.get_by_account(session, account_id)
    standing = await limits.standing(session, account_id, now, settings)
    return SubscriptionOut(
        **state.view(sub).model_dump(),
        appliedPlanId=standing.plan.plan_id if standing.plan else None,
        appliedBecause=standing.source,
        apiSpendUsd30d=float(standing.spend_usd_30d),
        limits=Limits(
            watchlistLimit=standing.watchlist_limit,
            followedProfileLimit=standing.followed_profile_limit,
            seats=standing.seats,
        ),
    )
