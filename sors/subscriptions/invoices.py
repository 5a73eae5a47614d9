"""Invoices: each paid one grants the plan's credits exactly once; the local provider's
renewals bill themselves here."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import service as billing
from sors.events import service as events
from sors.kit.clock import isoformat
from sors.kit.ids import new_id
from sors.kit.runtime import Runtime
from sors.payments import service as payments
from sors.subscriptions import repository as repo
from sors.subscriptions.models import Subscription, SubscriptionInvoice
from sors.subscriptions.plans import Plan, add_interval, get_plan
from sors.subscriptions.state import plan_changed


async def record_invoice(
    session: AsyncSession,
    sub: Subscription,
    *,
    provider: str,
    invoice_id: str,
    plan: Plan,
    interval: str,
    amount_cents: int,
    billing_reason: str | None,
    period: tuple[datetime | None, datetime | None],
    now: datetime,
    rt: Runtime,
) -> int | None:
    """Record one paid invoice and grant its credits: the credits granted, or None when this
    invoice was recorded before (a replayed or duplicated event)."""
    entitled = plan.credits_per_invoice(interval)
    change = billing_reason == "subscription_update"
    if amount_cents <= 0:
        credits = 0  # a trial's invoice (or one fully discounted) grants nothing
    elif change:
        credits = max(0, entitled - sub.period_credits)
    else:
        credits = entitled
    recorded = await repo.insert_invoice(session, SubscriptionInvoice(
        id=new_id("inv"), provider=provider, invoice_id=invoice_id, account_id=sub.account_id,
        subscription_id=sub.id, plan_id=plan.plan_id, interval=interval,
        amount_cents=amount_cents, credits=credits, billing_reason=billing_reason,
        period_start=period[0], period_end=period[1], paid_at=now,
    ))
    if not recorded:
        return None
    starts_period = not change and (
        period[0] is None
        or sub.current_period_start is None
        or period[0] >= sub.current_period_start
    )
    if starts_period:
        sub.period_credits = credits
    else:
        sub.period_credits += credits
    sub.updated_at = now
    if credits:
        await payments.credits_arriving(session, sub.account_id, now, rt)
        await billing.grant(
            session,
            sub.account_id,
            credits,
            reason=f"{plan.name} plan, {interval}ly invoice {invoice_id}",
            now=now,
            external_ref=f"invoice:{provider}:{invoice_id}",
        )
    await events.emit(
        session,
        sub.account_id,
        "invoice.paid",
        {
            "invoiceId": invoice_id,
            "planId": plan.plan_id,
            "interval": interval,
            "amountUsd": amount_cents / 100,
            "credits": credits,
            "billingReason": billing_reason,
            "periodStart": isoformat(period[0]),
            "periodEnd": isoformat(period[1]),
        },
        at=now,
    )
    return credits


async def renew_due(session: AsyncSession, now: datetime, rt: Runtime, *, limit: int) -> int:
    """The local provider's renewals: each subscription whose period (or trial) ended is
    billed for the next one (its credits granted), or ends when it was set to cancel. The
    invoice id names the period, so two schedulers cannot bill it twice. Where the local
    provider may not run (a live install: sors.payments.policy) nothing renews: it would
    grant plan credits nobody paid for."""
    if not rt.settings.local_payments_allowed:
        return 0
    done = 0
    for sub in await repo.due_local(session, now, limit=limit):
        plan = get_plan(sub.plan_id)
        assert sub.current_period_end is not None
        if sub.cancel_at_period_end or plan is None:
            sub.status, sub.canceled_at, sub.updated_at = "canceled", now, now
            await plan_changed(session, sub, now, rt)
            done += 1
            continue
        start = sub.current_period_end
        end = add_interval(start, sub.interval)
        while end <= now:  # a scheduler that was down bills the periods it missed
            start, end = end, add_interval(end, sub.interval)
        was = sub.status
        sub.status, sub.current_period_start, sub.current_period_end = "active", start, end
        await record_invoice(
            session,
            sub,
            provider="local",
            invoice_id=f"{sub.id}:{isoformat(start)}",
            plan=plan,
            interval=sub.interval,
            amount_cents=plan.price_cents(sub.interval),
            billing_reason="subscription_cycle",
            period=(start, end),
            now=now,
            rt=rt,
        )
        if was != "active":
            await plan_changed(session, sub, now, rt)
        done += 1
    return done
