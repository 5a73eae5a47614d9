"""Which plan's limits an account has, and why: its subscription, or the plan its API
spend over the last 30 days earns (the bigger of the two), else the operator's API-only
limits. Computed when asked, from the subscription row and the ledger, so it is never stale;
the daily check (sors.subscriptions.schedule) applies it to what already exists."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.pricing import get_pricing
from sors.config import Settings
from sors.kit.errors import ApiError
from sors.subscriptions import repository as repo
from sors.subscriptions.plans import Plan, all_plans, get_plan

SPEND_WINDOW = timedelta(days=30)
# A subscription in these states gives its plan's limits (past_due: while the provider
# retries the payment).
ENTITLED = ("trialing", "active", "past_due")
LimitName = Literal["watchlistLimit", "followedProfileLimit", "seats"]
PLAN_LIMIT_NOTE = (
    "`plan_limit_reached`: the plan's limit (`limit`, `limitValue`) is reached; "
    "`upgradePlanId` names the plan that lifts it"
)


@dataclass(frozen=True)
class Standing:
    plan: Plan | None  # None: no plan (API-only limits)
    source: Literal["subscription", "spend"] | None
    spend_usd_30d: Decimal
    watchlist_limit: int | None  # None: unlimited
    followed_profile_limit: int | None
    seats: int | None


def earned_plan(spend_usd: Decimal) -> Plan | None:
    """The biggest plan whose 30-day API spend threshold `spend_usd` reaches."""
    earned = [
        p
        for p in all_plans()
        if p.spend_equivalent_usd_30d is not None and spend_usd >= p.spend_equivalent_usd_30d
    ]
    return max(earned, key=lambda p: p.rank, default=None)


async def standing(
    session: AsyncSession, account_id: str, now: datetime, settings: Settings
) -> Standing:
    credits = await repo.spend_since(session, account_id, now - SPEND_WINDOW)
    spend = get_pricing().to_usd(credits)
    sub = await repo.get_by_account(session, account_id)
    subscribed = get_plan(sub.plan_id) if sub is not None and sub.status in ENTITLED else None
    earned = earned_plan(spend)
    source: Literal["subscription", "spend"]
    if subscribed is not None and (earned is None or subscribed.rank >= earned.rank):
        plan, source = subscribed, "subscription"
    elif earned is not None:
        plan, source = earned, "spend"
    else:
        return Standing(
            None,
            None,
            spend,
            settings.subscriptions.api_only_watchlist_limit,
            settings.subscriptions.api_only_followed_profile_limit,
            settings.subscriptions.api_only_seats,
        )
    return Standing(
        plan, source, spend, plan.watchlist_limit, plan.followed_profile_limit, plan.seats
    )


class PlanLimitReached(ApiError):
    status = 403
    code = "plan_limit_reached"
    title = "Plan limit reached"

    def __init__(self, limit: LimitName, value: int, standing: Standing) -> None:
        current = standing.plan.name if standing.plan else "no plan (API-only)"
        bigger = _lifting(limit, value, standing.plan)
        lift = (
            f" The {bigger.name} plan lifts it (POST /api/v1/subscriptions/checkout)."
            if bigger
            else ""
        )
        what = {
            "watchlistLimit": "tracked profiles",
            "followedProfileLimit": "profiles with an active alert",
            "seats": "people in the workspace (the owner included)",
        }[limit]
        super().__init__(
            f"{current} allows {value} {what}; remove one first.{lift}",
            limit=limit,
            limitValue=value,
            planId=standing.plan.plan_id if standing.plan else None,
            upgradePlanId=bigger.plan_id if bigger else None,
        )


def _lifting(limit: LimitName, value: int, current: Plan | None) -> Plan | None:
    """The smallest plan above `current` whose `limit` is greater than `value`."""
    rank = current.rank if current else -1
    for p in sorted(all_plans(), key=lambda p: p.rank):
        v = {
            "watchlistLimit": p.watchlist_limit,
            "followedProfileLimit": p.followed_profile_limit,
            "seats": p.seats,
        }[limit]
        if p.rank > rank and (v is None or v > value):
            return p
    return None
