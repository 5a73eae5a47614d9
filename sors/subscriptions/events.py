"""A payment provider's subscription and invoice events (Stripe), already verified and
deduplicated by event id (sors.payments.service.handle_event).

Events arrive in any order and more than once. An invoice grants its credits once whatever
happens (unique invoice row, unique ledger reference); an `invoice.paid` that arrives
before the checkout that started its subscription creates the subscription from the
metadata we set at checkout; a subscription state older than the last one applied changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.runtime import Runtime
from sors.payments.providers import PaymentEvent, SubscriptionFacts
from sors.subscriptions import invoices, state
from sors.subscriptions import repository as repo
from sors.subscriptions.models import Subscription
from sors.subscriptions.plans import get_plan

log = structlog.get_logger("sors.subscriptions")


class EventOutcome(StrEnum):
    """What a subscription or invoice event did (the Stripe webhook's `outcome`)."""

    APPLIED = "applied"
    STALE = "stale"  # older than the state already applied: nothing changed
    GRANTED = "granted"
    NO_CREDITS = "no_credits"  # a paid invoice that grants nothing (a trial's)
    DUPLICATE_INVOICE = "duplicate_invoice"
    PAYMENT_FAILED = "payment_failed"
    TRIAL_WILL_END = "trial_will_end"
    IGNORED = "ignored"
    UNKNOWN = "unknown"  # about no subscription of ours

# Stripe's statuses in ours (None: not one that changes what the account has).
_STATUS = {
    "trialing": "trialing",
    "active": "active",
    "past_due": "past_due",
    "unpaid": "past_due",
    "canceled": "canceled",
    "incomplete_expired": "canceled",
    "paused": "canceled",
}


def _plan_of(
    facts: SubscriptionFacts, sub: Subscription | None, prices: Mapping[str, str]
) -> tuple[str, str] | None:
    """(plan, interval): from the configured price, else our metadata, else the row."""
    if facts.price_id:
        for key, price in prices.items():
            if price == facts.price_id:
                plan_id, _, interval = key.rpartition("_")
                return plan_id, interval
    if facts.plan_id and facts.interval in ("month", "year"):
        return facts.plan_id, facts.interval
    if sub is not None:
        return sub.plan_id, sub.interval
    return None


async def _find(
    session: AsyncSession, facts: SubscriptionFacts, now: datetime, prices: Mapping[str, str],
    *, create: bool,
) -> Subscription | None:
    sub = None
    if facts.subscription_id:
        sub = await repo.get_by_provider_id(session, facts.subscription_id)
    if sub is None and facts.account_id:
        sub = await repo.get_by_account(session, facts.account_id, lock=True)
        if sub is not None and sub.provider_subscription_id not in (None, facts.subscription_id):
            # Another subscription of the account: only one that ended may be replaced (a
            # late event of an old subscription must not overwrite the running one).
            if not create or sub.status != "canceled":
                log.warning("subscriptions.event_for_other_subscription",
                            subscription=facts.subscription_id, account=facts.account_id)
                return None
            sub = await _start(session, facts.account_id, facts, sub, now, prices)
        elif sub is None and create:
            sub = await _start(session, facts.account_id, facts, None, now, prices)
    if sub is not None:
        if facts.subscription_id:
            sub.provider_subscription_id = facts.subscription_id
        if facts.customer_id:
            sub.provider_customer_id = facts.customer_id
        sub.provider = "stripe"
    return sub


async def _start(
    session: AsyncSession,
    account_id: str,
    facts: SubscriptionFacts,
    previous: Subscription | None,
    now: datetime,
    prices: Mapping[str, str],
) -> Subscription | None:
    which = _plan_of(facts, previous, prices)
    plan = get_plan(which[0]) if which else None
    if which is None or plan is None:
        log.warning("subscriptions.event_without_plan", subscription=facts.subscription_id)
        return None
    sub = await state.revive(session, account_id, "stripe", plan, which[1], now)
    sub.provider_subscription_id = None  # set by the caller, once it is ours
    return sub


def _stale(sub: Subscription, event: PaymentEvent) -> bool:
    return (
        event.created_at is not None
        and sub.provider_event_at is not None
        and event.created_at < sub.provider_event_at
    )


def _apply_state(
    sub: Subscription, facts: SubscriptionFacts, event: PaymentEvent, prices: Mapping[str, str]
) -> None:
    status = _STATUS.get(facts.status or "")
    if status is not None:
        sub.status = status
        if status == "trialing":
            sub.trial_used = True
    if facts.cancel_at_period_end is not None:
        sub.cancel_at_period_end = facts.cancel_at_period_end
    if facts.period_end is not None:
        sub.current_period_start = facts.period_start
        sub.current_period_end = facts.period_end
    sub.trial_end = facts.trial_end or sub.trial_end
    which = _plan_of(facts, sub, prices)
    if which is not None and get_plan(which[0]) is not None:
        sub.plan_id, sub.interval = which
    if event.created_at is not None:
        sub.provider_event_at = event.created_at


async def handle(
    session: AsyncSession, event: PaymentEvent, now: datetime, rt: Runtime
) -> EventOutcome:
    """Act on one subscription or invoice event; returns what happened."""
    facts = event.subscription
    prices = rt.settings.payments.stripe_prices
    if facts is None:
        return EventOutcome.UNKNOWN
    if event.kind == "subscription_started":
        return await _started(session, event, facts, now, rt)
    if event.kind in ("subscription_updated", "subscription_deleted"):
        sub = await _find(session, facts, now, prices, create=True)
        if sub is None:
            return EventOutcome.UNKNOWN
        if _stale(sub, event):
            return EventOutcome.STALE
        _apply_state(sub, facts, event, prices)
        if event.kind == "subscription_deleted":
            sub.status, sub.canceled_at = "canceled", now
        sub.updated_at = now
        await state.plan_changed(session, sub, now, rt)
        return EventOutcome.APPLIED
    if event.kind == "invoice_paid":
        return await _invoice_paid(session, facts, now, rt)
    if event.kind == "invoice_payment_failed":
        sub = await _find(session, facts, now, prices, create=False)
        if sub is None:
            return EventOutcome.UNKNOWN
        if sub.status in ("active", "trialing"):
            sub.status, sub.updated_at = "past_due", now
            await state.plan_changed(session, sub, now, rt)
        return EventOutcome.PAYMENT_FAILED
    if event.kind == "trial_will_end":
        return EventOutcome.TRIAL_WILL_END
    return EventOutcome.IGNORED


async def _started(
    session: AsyncSession, event: PaymentEvent, facts: SubscriptionFacts, now: datetime,
    rt: Runtime,
) -> EventOutcome:
    co = await repo.get_checkout(session, event.session_id, lock=True) if event.session_id else None
    account_id = co.account_id if co is not None else facts.account_id
    if account_id is None:
        return EventOutcome.UNKNOWN
    if co is not None:
        co.status, co.completed_at = "completed", now
        facts = SubscriptionFacts(
            subscription_id=facts.subscription_id,
            customer_id=facts.customer_id,
            account_id=account_id,
            plan_id=co.plan_id,
            interval=co.interval,
        )
    sub = await _find(session, facts, now, rt.settings.payments.stripe_prices, create=True)
    if sub is None:
        return EventOutcome.UNKNOWN
    if sub.provider_event_at is None and co is not None:
        # Until Stripe's own subscription events say more: trialing when it has a trial.
        sub.status = "trialing" if co.trial_days > 0 else "active"
        sub.trial_used = sub.trial_used or co.trial_days > 0
    sub.updated_at = now
    await state.plan_changed(session, sub, now, rt)
    return EventOutcome.APPLIED


async def _invoice_paid(
    session: AsyncSession, facts: SubscriptionFacts, now: datetime, rt: Runtime
) -> EventOutcome:
    if not facts.invoice_id or facts.amount_paid_cents is None:
        return EventOutcome.UNKNOWN
    prices = rt.settings.payments.stripe_prices
    sub = await _find(session, facts, now, prices, create=True)
    which = _plan_of(facts, sub, prices)
    plan = get_plan(which[0]) if which else None
    if sub is None or which is None or plan is None:
        log.warning("subscriptions.invoice_for_unknown_subscription", invoice=facts.invoice_id)
        return EventOutcome.UNKNOWN
    credits = await invoices.record_invoice(
        session,
        sub,
        provider="stripe",
        invoice_id=facts.invoice_id,
        plan=plan,
        interval=which[1],
        amount_cents=facts.amount_paid_cents,
        billing_reason=facts.billing_reason,
        period=(facts.period_start, facts.period_end),
        now=now,
        rt=rt,
    )
    if credits is None:
        return EventOutcome.DUPLICATE_INVOICE
    newer = facts.period_end is not None and (
        sub.current_period_end is None or facts.period_end >= sub.current_period_end
    )
    if newer:
        sub.current_period_start, sub.current_period_end = facts.period_start, facts.period_end
        sub.plan_id, sub.interval = plan.plan_id, which[1]
        if facts.amount_paid_cents > 0 and sub.status in ("past_due", "trialing"):
            sub.status = "active"  # paid: the trial is over, or the retry succeeded
        await state.plan_changed(session, sub, now, rt)
    return EventOutcome.GRANTED if credits else EventOutcome.NO_CREDITS
