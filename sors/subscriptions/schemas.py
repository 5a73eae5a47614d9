"""Subscriptions: request bodies and response models (camelCase)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from sors.billing.pricing import get_pricing
from sors.email.addresses import normalize_email
from sors.kit.schemas import RequestModel, ResponseModel

PlanId = Literal[tuple(get_pricing().plans)]  # type: ignore[valid-type]
Interval = Literal["month", "year"]


class PlanChoice(RequestModel):
    planId: Annotated[PlanId, Field(description="A plan of GET /api/v1/pricing")]
    interval: Annotated[Interval, Field(description="Billed every month or every year")] = "month"


class SubscriptionCheckoutLink(ResponseModel):
    planId: str
    interval: Interval
    priceUsd: float
    trialDays: int = Field(description="Free days before the first paid invoice (0: none)")
    checkoutUrl: str
    expiresAt: str


class Limits(ResponseModel):
    watchlistLimit: int | None = Field(description="Tracked profiles; null: unlimited")
    followedProfileLimit: int | None = Field(
        description="Profiles with an active viral alert; null: unlimited"
    )
    seats: int | None = Field(description="People in the workspace, the owner included")


class SubscriptionView(ResponseModel):
    """A subscription as the rest of the service sees it (the `subscription.updated` event's
    data, the first fields of GET /subscriptions)."""

    planId: str | None = Field(description="The subscribed plan; null: none")
    interval: Interval | None
    status: Literal["trialing", "active", "past_due", "canceled"] | None
    cancelAtPeriodEnd: bool
    currentPeriodStart: str | None
    currentPeriodEnd: str | None
    trialEnd: str | None
    creditsGrantedThisPeriod: int = Field(
        description="Credits the invoices of the current period granted"
    )
    provider: Literal["local", "stripe"] | None


class SubscriptionOut(SubscriptionView):
    appliedPlanId: str | None = Field(
        description="The plan whose limits apply: the subscribed one, or one the API spend of "
        "the last 30 days earns (the bigger); null: the API-only limits"
    )
    appliedBecause: Literal["subscription", "spend"] | None
    apiSpendUsd30d: float = Field(description="API spend of the last 30 days, in USD")
    limits: Limits


class PortalLink(ResponseModel):
    url: str | None = Field(description="Stripe's customer portal; null: no provider portal")


# ---- members ------------------------------------------------------------------------------

Role = Literal["owner", "member", "viewer"]


class InviteIn(RequestModel):
    email: Annotated[
        str,
        Field(min_length=3, max_length=320, json_schema_extra={"format": "email"},
              examples=["ana@example.com"]),
    ]
    role: Role = "member"

    @field_validator("email")
    @classmethod
    def _email(cls, v: str) -> str:
        return normalize_email(v)


class MemberOut(ResponseModel):
    memberId: str
    email: str
    role: Role
    status: Literal["invited", "active", "removed"]
    invitedAt: str
    acceptedAt: str | None


class Invited(MemberOut):
    """The invited member. The signed link (valid seven days) goes to the address only."""


class MemberList(ResponseModel):
    results: list[MemberOut]


class MemberRemoved(MemberOut):
    keysRevoked: int = Field(description="The member's keys, revoked with the membership")
