"""A subscription's state seen by the rest of the service: its view, starting one (again),
and announcing a change of plan (`subscription.updated`, and the in-process hook)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.events import service as events
from sors.kit.clock import isoformat
from sors.kit.ids import new_id
from sors.kit.runtime import Runtime
from sors.subscriptions import repository as repo
from sors.subscriptions.models import Subscription
from sors.subscriptions.plans import Plan
from sors.subscriptions.schemas import SubscriptionView

# The in-process event "this account's plan may have changed" (subscribed, upgraded,
# downgraded, canceled), in the change's transaction: monitoring re-applies its limit.
# Its listeners, `(session, account_id, now, rt)`, are named in `sors.wiring`.
PLAN_CHANGED = "subscriptions.plan_changed"


async def revive(
    session: AsyncSession, account_id: str, provider: str, plan: Plan, interval: str, now: datetime
) -> Subscription:
    """The account's subscription row, new or a canceled one starting again."""
    sub = await repo.get_by_account(session, account_id, lock=True)
    if sub is None:
        sub = Subscription(
            id=new_id("sub"),
            account_id=account_id,
            provider=provider,
            plan_id=plan.plan_id,
            interval=interval,
            status="active",
            cancel_at_period_end=False,
            period_credits=0,
            trial_used=False,
            created_at=now,
            updated_at=now,
        )
        await repo.add(session, sub)
        return sub
    sub.provider, sub.plan_id, sub.interval = provider, plan.plan_id, interval
    sub.status, sub.cancel_at_period_end, sub.canceled_at = "active", False, None
    sub.current_period_start = sub.current_period_end = sub.trial_end = None
    sub.period_credits, sub.provider_event_at, sub.updated_at = 0, None, now
    return sub


async def plan_changed(
    session: AsyncSession, sub: Subscription, now: datetime, rt: Runtime
) -> None:
    """`subscription.updated` and the limits of what exists, in this transaction."""
    await session.flush()
    data = view(sub).model_dump(mode="json")
    await events.emit(session, sub.account_id, "subscription.updated", data, at=now)
    await limits_may_have_changed(session, sub.account_id, now, rt)


async def limits_may_have_changed(
    session: AsyncSession, account_id: str, now: datetime, rt: Runtime
) -> None:
    """Tell the listeners of PLAN_CHANGED (what exists follows the plan's limits)."""
    for listener in rt.registries.listening(PLAN_CHANGED):
        await listener(session, account_id, now, rt)


def view(sub: Subscription | None) -> SubscriptionView:
    if sub is None:
        return SubscriptionView(
            planId=None, interval=None, status=None, cancelAtPeriodEnd=False,
            currentPeriodStart=None, currentPeriodEnd=None, trialEnd=None,
            creditsGrantedThisPeriod=0, provider=None,
        )
    return SubscriptionView(
        planId=sub.plan_id,
        interval=sub.interval,
        status=sub.status,
        cancelAtPeriodEnd=sub.cancel_at_period_end,
        currentPeriodStart=isoformat(sub.current_period_start),
        currentPeriodEnd=isoformat(sub.current_period_end),
        trialEnd=isoformat(sub.trial_end),
        creditsGrantedThisPeriod=sub.period_credits,
        provider=sub.provider,
    )
