"""Credits, ledger and price list: request bodies and response models (camelCase)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import Field

from sors.billing.models import LedgerEntry
from sors.billing.pricing import Pricing, get_pricing, limit, number
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel, ResponseModel

Number = int | float


class CreditBalance(ResponseModel):
    balance: int
    balanceUsd: float
    usdPerCredit: float


class LedgerEntryOut(ResponseModel):
    entryId: str
    kind: Literal["charge", "refund", "topup", "grant", "adjustment"]
    credits: int = Field(description="Signed: negative for charges")
    balanceAfter: int
    reason: str | None
    skill: str | None
    requestId: str | None
    jobRef: str | None
    refundOf: str | None
    keyId: str | None = Field(None, description="Charges: the API key that spent")
    memberId: str | None = Field(
        None, description="Charges: the member whose key spent (null: the account owner)"
    )
    createdAt: str


class LedgerPage(ResponseModel):
    results: list[LedgerEntryOut]
    hasMore: bool
    nextBefore: str | None = Field(description="Pass as `before` for the next page")


class PriceVariant(ResponseModel):
    key: str = Field(description='e.g. "metadata" (analyze_post), "already_tracked" '
                     '(crawl_profile)')
    title: str
    credits: int


class SkillPrice(ResponseModel):
    key: str
    title: str
    method: str
    path: str
    credits: int
    per: str | None = Field(None, description="What one charge of `credits` buys when it is "
                            "not one call (\"100 comments\": charged per started 100)")
    includes: str | None = Field(None, description="What the price covers beyond the call")
    variants: list[PriceVariant] = Field(
        default_factory=list, description="Other prices of the same call, and when they apply")


class RecurringCharge(ResponseModel):
    key: str
    title: str
    credits: int


class PackOut(ResponseModel):
    packId: str
    credits: int
    priceUsd: Number


class PlanOut(ResponseModel):
    planId: str
    name: str
    monthlyPriceUsd: Number | None
    yearlyPriceUsd: Number | None
    monthlyApiCredits: int
    watchlistLimit: Number | None = Field(description="null: unlimited")
    followedProfileLimit: Number | None = Field(description="null: unlimited")
    apiSpendEquivalentUsd30d: Number | None
    seats: Number | None = Field(
        description="People in the workspace, the owner included; null: unlimited"
    )


class Subscriptions(ResponseModel):
    trialDays: int
    subscribeUrl: str | None


class PriceList(ResponseModel):
    usdPerCredit: Number
    skills: list[SkillPrice]
    recurringCharges: list[RecurringCharge]
    packs: list[PackOut]
    plans: list[PlanOut]
    subscriptions: Subscriptions
    keylessCheckout: str | None
    monthlyPlanCredits: dict[str, int]


PackId = Literal[tuple(get_pricing().packs)]  # type: ignore[valid-type]


class TopupIn(RequestModel):
    packId: Annotated[PackId, Field(description="A pack of GET /api/v1/pricing")]


class TopupLink(ResponseModel):
    packId: str
    credits: int
    priceUsd: Number
    checkoutUrl: str
    expiresAt: str


def ledger_entry(
    e: LedgerEntry, members: Mapping[str, str | None] | None = None
) -> LedgerEntryOut:
    """An entry as GET /credits/ledger shows it. `members` (each key's member) adds who
    spent; without it (the entry inside a `credits.*` event) `keyId` and `memberId` are left
    out (unset)."""
    out = LedgerEntryOut(
        entryId=e.id, kind=e.kind, credits=e.delta, balanceAfter=e.balance_after,
        reason=e.reason, skill=e.skill, requestId=e.request_id, jobRef=e.job_ref,
        refundOf=e.refund_of, createdAt=isoformat(e.created_at) or "",
    )
    if members is not None:
        out.keyId = e.key_id
        out.memberId = members.get(e.key_id) if e.key_id else None
    return out


class CreditsEvent(ResponseModel):
    """The data of the `credits.added` and `credits.low` events (webhooks deliver it)."""

    balance: int
    balanceUsd: float
    usdPerCredit: float
    entry: LedgerEntryOut  # the shape of GET /credits/ledger entries (no keyId, memberId)
    threshold: int | None = None  # credits.low: the threshold the balance fell below


def price_list(
    pricing: Pricing, *, keyless_checkout_url: str | None, subscribe_url: str | None = None
) -> PriceList:
    """GET /pricing: the same object that decides every charge, as clients read it."""
    plans = [
        PlanOut(
            planId=p.plan_id, name=p.name, monthlyPriceUsd=limit(p.monthly_price_usd),
            yearlyPriceUsd=limit(p.yearly_price_usd), monthlyApiCredits=p.monthly_api_credits,
            watchlistLimit=limit(p.watchlist_limit),
            followedProfileLimit=limit(p.followed_profile_limit),
            apiSpendEquivalentUsd30d=limit(p.api_spend_equivalent_usd_30d),
            seats=limit(p.seats),
        )
        for p in pricing.plans.values()
    ]
    return PriceList(
        usdPerCredit=number(pricing.usd_per_credit),
        skills=[
            SkillPrice(
                key=s.key, title=s.title, method=s.method, path=s.path, credits=s.credits,
                per=s.per, includes=s.includes,
                variants=[PriceVariant(key=k.removesuffix("_credits"), title=s.titles[k],
                                       credits=v) for k, v in s.extra.items()],
            )
            for s in pricing.skills.values()
        ],
        recurringCharges=[
            RecurringCharge(key=r.key, title=r.title, credits=r.credits)
            for r in pricing.recurring.values()
        ],
        packs=[
            PackOut(packId=p.pack_id, credits=p.credits, priceUsd=number(p.price_usd))
            for p in pricing.packs.values()
        ],
        plans=plans,
        subscriptions=Subscriptions(
            trialDays=pricing.trial_days, subscribeUrl=pricing.subscribe_url or subscribe_url
        ),
        keylessCheckout=keyless_checkout_url,
        monthlyPlanCredits={p.planId: p.monthlyApiCredits for p in plans},
    )
