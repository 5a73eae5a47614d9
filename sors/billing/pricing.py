"""The price list, loaded once from sors/pricing.toml.

The same `Pricing` object answers GET /pricing and decides every charge, so the listed cost
and the charged cost cannot drift apart.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Skill:
    key: str
    title: str
    method: str
    path: str
    credits: int
    extra: dict[str, int]


@dataclass(frozen=True)
class Pack:
    pack_id: str
    credits: int
    price_usd: Decimal

    @property
    def price_cents(self) -> int:
        return int(self.price_usd * 100)


@dataclass(frozen=True)
class Pricing:
    usd_per_credit: Decimal
    skills: dict[str, Skill]
    recurring: dict[str, dict[str, Any]]
    packs: dict[str, Pack]
    plans: dict[str, dict[str, Any]]
    subscriptions: dict[str, Any]

    def cost(self, key: str, variant: str | None = None) -> int:
        if key in self.recurring:
            return int(self.recurring[key]["credits"])
        skill = self.skills[key]
        if variant is not None:
            return skill.extra[variant]
        return skill.credits

    def to_usd(self, credits: int) -> Decimal:
        return (Decimal(credits) * self.usd_per_credit).quantize(Decimal("0.01"))


def _num(value: Any) -> int | float | None:
    if value == "unlimited":
        return None
    d = Decimal(str(value))
    return int(d) if d == d.to_integral_value() else float(d)


def load_pricing(text: str) -> Pricing:
    raw = tomllib.loads(text)
    skills = {}
    for key, s in raw["skills"].items():
        extra = {k: int(v) for k, v in s.items() if k.endswith("_credits")}
        skills[key] = Skill(key, s["title"], s["method"], s["path"], int(s["credits"]), extra)
    packs = {
        pid: Pack(pid, int(p["credits"]), Decimal(str(p["price_usd"])))
        for pid, p in raw["packs"].items()
    }
    return Pricing(
        usd_per_credit=Decimal(raw["usd_per_credit"]),
        skills=skills,
        recurring=raw.get("recurring", {}),
        packs=packs,
        plans=raw.get("plans", {}),
        subscriptions=raw.get("subscriptions", {}),
    )


@lru_cache(maxsize=1)
def get_pricing() -> Pricing:
    text = resources.files("sors").joinpath("pricing.toml").read_text()
    return load_pricing(text)


def render_price_list(
    pricing: Pricing, *, keyless_checkout_url: str | None, subscribe_url: str | None = None
) -> dict[str, Any]:
    plans = [
        {
            "planId": pid,
            "name": p["name"],
            "monthlyPriceUsd": _num(p["monthly_price_usd"]),
            "yearlyPriceUsd": _num(p["yearly_price_usd"]),
            "monthlyApiCredits": int(p["monthly_api_credits"]),
            "watchlistLimit": _num(p["watchlist_limit"]),
            "followedProfileLimit": _num(p["followed_profile_limit"]),
            "apiSpendEquivalentUsd30d": _num(p["api_spend_equivalent_usd_30d"]),
            "seats": _num(p.get("seats", 1)),
        }
        for pid, p in pricing.plans.items()
    ]
    return {
        "usdPerCredit": _num(pricing.usd_per_credit),
        "skills": [
            {"key": s.key, "title": s.title, "method": s.method, "path": s.path, "credits": s.credits}
            for s in pricing.skills.values()
        ],
        "recurringCharges": [
            {"key": k, "title": v["title"], "credits": int(v["credits"])}
            for k, v in pricing.recurring.items()
        ],
        "packs": [
            {"packId": p.pack_id, "credits": p.credits, "priceUsd": _num(p.price_usd)}
            for p in pricing.packs.values()
        ],
        "plans": plans,
        "subscriptions": {
            "trialDays": int(pricing.subscriptions.get("trial_days", 0)),
            "subscribeUrl": pricing.subscriptions.get("subscribe_url") or subscribe_url,
        },
        "keylessCheckout": keyless_checkout_url,
        "monthlyPlanCredits": {p["planId"]: p["monthlyApiCredits"] for p in plans},
    }
