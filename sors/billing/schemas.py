"""Credits, ledger and price list: request bodies and response models (camelCase)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from sors.billing.models import LedgerEntry
from sors.billing.pricing import get_pricing
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


class SkillPrice(ResponseModel):
    key: str
    title: str
    method: str
    path: str
    credits: int


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


def ledger_entry(e: LedgerEntry, members: dict[str, str | None] | None = None) -> dict[str, Any]:
    return {
        "entryId": e.id,
        "kind": e.kind,
        "credits": e.delta,
        "balanceAfter": e.balance_after,
        "reason": e.reason,
        "skill": e.skill,
        "requestId": e.request_id,
        "jobRef": e.job_ref,
        "refundOf": e.refund_of,
        "keyId": e.key_id,
        "memberId": (members or {}).get(e.key_id) if e.key_id else None,
        "createdAt": isoformat(e.created_at),
    }
