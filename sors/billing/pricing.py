"""The price list, loaded once from sors/pricing.toml.

The same `Pricing` object answers GET /pricing and decides every charge, so the listed cost
and the charged cost cannot drift apart.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from importlib import resources

# A number as the price list writes it: an integer, or a decimal in a string ("14.99"); a
# limit may also be "unlimited".
Written = int | float | str


@dataclass(frozen=True)
class Skill:
    key: str
    title: str
    method: str
    path: str
    credits: int
    extra: dict[str, int]  # other prices of the same call, by case ("metadata_credits")
    includes: str | None = None  # what the price covers beyond the call itself
    titles: dict[str, str] = field(default_factory=dict)  # each case of `extra`, said
    # What one charge of `credits` buys when it is not one call ("100 comments"); None: a call.
    per: str | None = None


@dataclass(frozen=True)
class Recurring:
    """A charge no request triggers directly (a monitored profile's refresh, a digest)."""

    key: str
    title: str
    credits: int


@dataclass(frozen=True)
class Pack:
    pack_id: str
    credits: int
    price_usd: Decimal

    @property
    def price_cents(self) -> int:
        return int(self.price_usd * 100)


@dataclass(frozen=True)
class PlanTerms:
    """A plan as the price list states it (`sors.subscriptions.plans` reads it for selling
    and billing; the price list shows it)."""

    plan_id: str
    name: str
    monthly_price_usd: Written
    yearly_price_usd: Written
    monthly_api_credits: int
    watchlist_limit: Written
    followed_profile_limit: Written
    api_spend_equivalent_usd_30d: Written | None
    seats: Written  # people in the workspace, the owner included


@dataclass(frozen=True)
class Pricing:
    usd_per_credit: Decimal
    skills: dict[str, Skill]
    recurring: dict[str, Recurring]
    packs: dict[str, Pack]
    plans: dict[str, PlanTerms]
    trial_days: int  # a first subscription's free days
    subscribe_url: str | None  # where the price list sends a buyer (None: the service's own)

    def cost(self, key: str, variant: str | None = None) -> int:
        if key in self.recurring:
            return self.recurring[key].credits
        skill = self.skills[key]
        if variant is not None:
            return skill.extra[variant]
        return skill.credits

    def to_usd(self, credits: int) -> Decimal:
        return (Decimal(credits) * self.usd_per_credit).quantize(Decimal("0.01"))


def number(value: Written | Decimal) -> int | float:
    """A written number as the price list shows it: an integer when whole."""
    d = Decimal(str(value))
    return int(d) if d == d.to_integral_value() else float(d)


def limit(value: Written | None) -> int | float | None:
    """A number that may be "unlimited" (None), as the price list shows it."""
    return None if value is None or value == "unlimited" else number(value)


def _plan(plan_id: str, p: Mapping[str, Written]) -> PlanTerms:
    spend = p.get("api_spend_equivalent_usd_30d")
    return PlanTerms(
        plan_id=plan_id,
        name=str(p["name"]),
        monthly_price_usd=p["monthly_price_usd"],
        yearly_price_usd=p["yearly_price_usd"],
        monthly_api_credits=int(p["monthly_api_credits"]),
        watchlist_limit=p["watchlist_limit"],
        followed_profile_limit=p["followed_profile_limit"],
        api_spend_equivalent_usd_30d=spend,
        seats=p.get("seats", 1),
    )


def load_pricing(text: str) -> Pricing:
    raw = tomllib.loads(text)
    skills = {}
    for key, s in raw["skills"].items():
        extra = {k: int(v) for k, v in s.items() if k.endswith("_credits")}
        titles = {k: str(s.get(k.removesuffix("_credits") + "_title") or k) for k in extra}
        skills[key] = Skill(key, s["title"], s["method"], s["path"], int(s["credits"]), extra,
                            s.get("includes"), titles, s.get("per"))
    packs = {
        pid: Pack(pid, int(p["credits"]), Decimal(str(p["price_usd"])))
        for pid, p in raw["packs"].items()
    }
    recurring = {
        k: Recurring(k, str(v["title"]), int(v["credits"]))
        for k, v in raw.get("recurring", {}).items()
    }
    subscriptions = raw.get("subscriptions", {})
    return Pricing(
        usd_per_credit=Decimal(raw["usd_per_credit"]),
        skills=skills,
        recurring=recurring,
        packs=packs,
        plans={pid: _plan(pid, p) for pid, p in raw.get("plans", {}).items()},
        trial_days=int(subscriptions.get("trial_days", 0)),
        subscribe_url=subscriptions.get("subscribe_url") or None,
    )


@lru_cache(maxsize=1)
def get_pricing() -> Pricing:
    text = resources.files("sors").joinpath("pricing.toml").read_text()
    return load_pricing(text)
