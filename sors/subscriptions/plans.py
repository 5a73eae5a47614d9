"""The plans of the price list (sors/pricing.toml), read for selling and billing them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sors.billing.pricing import Written, get_pricing
from sors.kit.errors import ValidationFailed

MONTHS = {"month": 1, "year": 12}


@dataclass(frozen=True)
class Plan:
    plan_id: str
    name: str
    rank: int  # its place in the price list: a higher rank is a bigger plan
    monthly_price_usd: Decimal
    yearly_price_usd: Decimal
    monthly_credits: int
    watchlist_limit: int | None  # None: unlimited
    followed_profile_limit: int | None
    spend_equivalent_usd_30d: Decimal | None
    seats: int | None  # people in the workspace, the owner included; None: unlimited

    def price_cents(self, interval: str) -> int:
        price = self.yearly_price_usd if interval == "year" else self.monthly_price_usd
        return int(price * 100)

    def credits_per_invoice(self, interval: str) -> int:
        """The credits of one paid period: a month's, or twelve months' at once."""
        return self.monthly_credits * MONTHS[interval]


def _limit(value: Written | None) -> int | None:
    return None if value is None or value == "unlimited" else int(value)


def all_plans() -> list[Plan]:
    out = []
    for rank, p in enumerate(get_pricing().plans.values()):
        spend = p.api_spend_equivalent_usd_30d
        out.append(
            Plan(
                plan_id=p.plan_id,
                name=p.name,
                rank=rank,
                monthly_price_usd=Decimal(str(p.monthly_price_usd)),
                yearly_price_usd=Decimal(str(p.yearly_price_usd)),
                monthly_credits=p.monthly_api_credits,
                watchlist_limit=_limit(p.watchlist_limit),
                followed_profile_limit=_limit(p.followed_profile_limit),
                spend_equivalent_usd_30d=Decimal(str(spend)) if spend is not None else None,
                seats=_limit(p.seats),
            )
        )
    return out


def get_plan(plan_id: str) -> Plan | None:
    return next((p for p in all_plans() if p.plan_id == plan_id), None)


def plan_or_422(plan_id: str) -> Plan:
    plan = get_plan(plan_id)
    if plan is None:
        ids = ", ".join(p.plan_id for p in all_plans())
        raise ValidationFailed.single("planId", f"Unknown plan; one of {ids}.")
    return plan


def trial_days() -> int:
    return get_pricing().trial_days


def add_interval(start: datetime, interval: str, count: int = 1) -> datetime:
    """`start` plus whole calendar months (a year is twelve); the day is clamped to the
    month's last day (Jan 31 + 1 month = Feb 28/29)."""
    months = start.month - 1 + MONTHS[interval] * count
    year, month = start.year + months // 12, months % 12 + 1
    following = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=start.tzinfo)
    last_day = (following - timedelta(days=1)).day
    return start.replace(year=year, month=month, day=min(start.day, last_day))
