"""Every query of the subscriptions domain."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.subscriptions.models import (
    PlanLimitCheck,
    Subscription,
    SubscriptionCheckout,
    SubscriptionInvoice,
)


async def get_by_account(
    session: AsyncSession, account_id: str, *, lock: bool = False
) -> Subscription | None:
    stmt = select(Subscription).where(Subscription.account_id == account_id)
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def get_by_provider_id(
    session: AsyncSession, provider_subscription_id: str
) -> Subscription | None:
    stmt = (
        select(Subscription)
        .where(Subscription.provider_subscription_id == provider_subscription_id)
        .with_for_update()
    )
    return (await session.execute(stmt)).scalars().first()


async def add(session: AsyncSession, row: Subscription | SubscriptionCheckout) -> None:
    session.add(row)
    await session.flush()


async def get_checkout(
    session: AsyncSession, checkout_id: str, *, lock: bool = False
) -> SubscriptionCheckout | None:
    stmt = select(SubscriptionCheckout).where(SubscriptionCheckout.id == checkout_id)
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def insert_invoice(session: AsyncSession, inv: SubscriptionInvoice) -> bool:
    """Record the paid invoice `inv` (built, not added to the session); False when this
    (provider, invoice id) was recorded before."""
    stmt = (
        insert(SubscriptionInvoice)
        .values(
            id=inv.id, provider=inv.provider, invoice_id=inv.invoice_id,
            account_id=inv.account_id, subscription_id=inv.subscription_id,
            plan_id=inv.plan_id, interval=inv.interval, amount_cents=inv.amount_cents,
            credits=inv.credits, billing_reason=inv.billing_reason,
            period_start=inv.period_start, period_end=inv.period_end, paid_at=inv.paid_at,
        )
        .on_conflict_do_nothing(constraint="uq_subscription_invoices_invoice")
        .returning(SubscriptionInvoice.id)
    )
    return (await session.execute(stmt)).first() is not None


async def due_local(session: AsyncSession, now: datetime, *, limit: int) -> list[Subscription]:
    """Local subscriptions whose period (or trial) has ended: the scheduler bills them."""
    stmt = (
        select(Subscription)
        .where(
            Subscription.provider == "local",
            Subscription.status != "canceled",
            Subscription.current_period_end <= now,
        )
        .order_by(Subscription.current_period_end)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    return list((await session.execute(stmt)).scalars())


async def needing_notice(
    session: AsyncSession, trials_before: datetime, *, limit: int
) -> list[Subscription]:
    """Trials ending before `trials_before`, and past-due subscriptions, whose notice has
    not gone out."""
    trial = (
        (Subscription.status == "trialing")
        & (Subscription.trial_end <= trials_before)
        & Subscription.trial_notice_sent_for.is_distinct_from(Subscription.trial_end)
    )
    past_due = (Subscription.status == "past_due") & (
        Subscription.payment_notice_sent_for.is_distinct_from(Subscription.current_period_end)
    )
    stmt = (
        select(Subscription)
        .where(trial | past_due)
        .order_by(Subscription.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    return list((await session.execute(stmt)).scalars())


async def spend_since(session: AsyncSession, account_id: str, since: datetime) -> int:
    """Credits the account's API use cost since `since`: charges less their refunds."""
    q = text(
        "SELECT COALESCE(SUM(-delta) FILTER (WHERE kind = 'charge'), 0)"
        " - COALESCE(SUM(delta) FILTER (WHERE kind = 'refund'), 0)"
        " FROM ledger_entries WHERE account_id = :a AND created_at > :since"
        " AND kind IN ('charge', 'refund')"
    )
    return int((await session.execute(q, {"a": account_id, "since": since})).scalar_one())


async def invoice_count(session: AsyncSession, account_id: str) -> int:
    q = select(func.count()).where(SubscriptionInvoice.account_id == account_id)
    return int((await session.execute(q)).scalar_one())


async def accounts_with_plan_or_spend(session: AsyncSession, since: datetime) -> list[str]:
    """Accounts whose limits may have changed: a subscription, or any spend in the window,
    or anything paused by a plan limit."""
    q = text(
        "SELECT account_id FROM subscriptions"
        " UNION SELECT DISTINCT account_id FROM ledger_entries"
        "   WHERE kind = 'charge' AND created_at > :since"
    )
    return [r[0] for r in (await session.execute(q, {"since": since})).all()]


async def claim_limit_check(session: AsyncSession, now: datetime) -> bool:
    """True for the first caller of the UTC day."""
    stmt = (
        insert(PlanLimitCheck)
        .values(day=now.date(), checked_at=now)
        .on_conflict_do_nothing()
        .returning(PlanLimitCheck.day)
    )
    return (await session.execute(stmt)).first() is not None
