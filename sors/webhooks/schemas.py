"""Webhook request bodies and records (camelCase, like every non-post record)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import Field, field_validator

from sors.events.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from sors.events.service import EVENT_TYPES
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel, ResponseModel

EventType = Literal[EVENT_TYPES]  # type: ignore[valid-type]
Description = Annotated[str, Field(max_length=500)]
# The syntax part of the URL rules; whether the host resolves to public addresses only is
# decided when the endpoint is saved and at each delivery (sors/webhooks/ssrf.py).
Url = Annotated[str, Field(
    min_length=1, max_length=2048,
    description="An https:// URL of a public host: no credentials, no IP address that is not "
    "public, a domain name of at least two labels that resolves to public addresses only "
    "(checked when saved and at each delivery: 422 `unsafe_url` otherwise). Plain http:// "
    "only where the operator allows it.",
    json_schema_extra={
        "pattern": r"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+\.[A-Za-z0-9-]+\.?(?::[0-9]{1,5})?"
                   r"(?:[/?#][!-~]*)?$",
        "format": "uri",
    },
)]
Format = Literal["standard", "slack", "discord"]
FORMAT_HELP = (
    "The body's shape: `standard` (Standard Webhooks envelope), `slack` (an incoming-webhook "
    "message: `text` and `blocks`) or `discord` (`content` and `embeds`)."
)


def _unique(v: list[str] | None) -> list[str] | None:
    if v is None:
        return None
    if not v:
        raise ValueError("list at least one event type (or leave `events` out for all)")
    return list(dict.fromkeys(v))


class WebhookIn(RequestModel):
    url: Url
    description: Description | None = None
    events: Annotated[list[EventType], Field(min_length=1)] | None = None  # None: every type
    enabled: bool = True
    format: Format = Field("standard", description=FORMAT_HELP)

    @field_validator("events")
    @classmethod
    def _events(cls, v: list[str] | None) -> list[str] | None:
        return _unique(v)


class WebhookPatch(RequestModel):
    url: Url | None = None
    description: Description | None = None
    events: Annotated[list[EventType], Field(min_length=1)] | None = None
    enabled: bool | None = None
    format: Format | None = Field(None, description=FORMAT_HELP)

    @field_validator("events")
    @classmethod
    def _events(cls, v: list[str] | None) -> list[str] | None:
        return _unique(v)


class SettingsIn(RequestModel):
    creditsLowThreshold: Annotated[int, Field(ge=0, le=1_000_000_000)]


# ---- records --------------------------------------------------------------------------------


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # an attempt is due (now, or at `next_attempt_at`)
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # for good: the schedule ran out, or the endpoint was disabled


DeliveryState = Literal["pending", "succeeded", "failed"]  # a DeliveryStatus, in the document
assert set(get_args(DeliveryState)) == set(DeliveryStatus)


class WebhookOut(ResponseModel):
    id: str
    url: str
    description: str | None
    events: list[str]
    enabled: bool
    format: Format = Field(description=FORMAT_HELP)
    disabledReason: Literal["delivery_failures"] | None
    disabledAt: str | None
    previousSecretExpiresAt: str | None = Field(
        description="After a rotation, the old secret also signs until this time (24 h)."
    )
    createdAt: str
    updatedAt: str

    @classmethod
    def of(cls, ep: WebhookEndpoint, now: datetime) -> WebhookOut:
        prev = ep.previous_secret_expires_at
        return cls(
            id=ep.id,
            url=ep.url,
            description=ep.description,
            events=list(ep.events),
            enabled=ep.enabled,
            format=ep.format,
            disabledReason=ep.disabled_reason,
            disabledAt=isoformat(ep.disabled_at),
            previousSecretExpiresAt=isoformat(prev) if prev is not None and prev > now else None,
            createdAt=isoformat(ep.created_at),
            updatedAt=isoformat(ep.updated_at),
        )


class WebhookCreated(WebhookOut):
    secret: str = Field(description="The signing secret (whsec_…); shown only now.")


class WebhookList(ResponseModel):
    results: list[WebhookOut]


class SecretOut(ResponseModel):
    id: str
    secret: str
    previousSecretExpiresAt: str


class DeletedOut(ResponseModel):
    id: str
    status: Literal["deleted"]


class AttemptOut(ResponseModel):
    attemptedAt: str
    responseStatus: int | None
    durationMs: int
    error: str | None


class DeliveryOut(ResponseModel):
    deliveryId: str
    endpointId: str
    eventId: str
    eventType: str
    status: DeliveryState
    attempts: int
    responseStatus: int | None
    durationMs: int | None
    error: str | None
    lastAttemptAt: str | None
    nextRetryAt: str | None
    createdAt: str
    finishedAt: str | None
    attemptLog: list[AttemptOut]

    @classmethod
    def of(
        cls, d: WebhookDelivery, ev: WebhookEvent, attempts: list[WebhookAttempt]
    ) -> DeliveryOut:
        pending = d.status == DeliveryStatus.PENDING
        return cls(
            deliveryId=d.id,
            endpointId=d.endpoint_id,
            eventId=ev.id,
            eventType=ev.type,
            status=d.status,
            attempts=d.attempts,
            responseStatus=d.response_status,
            durationMs=d.duration_ms,
            error=d.error,
            lastAttemptAt=isoformat(d.last_attempt_at),
            nextRetryAt=isoformat(d.next_attempt_at) if pending else None,
            createdAt=isoformat(d.created_at),
            finishedAt=isoformat(d.finished_at),
            attemptLog=[
                AttemptOut(attemptedAt=isoformat(a.attempted_at), responseStatus=a.response_status,
                           durationMs=a.duration_ms, error=a.error)
                for a in attempts
            ],
        )


class DeliveryList(ResponseModel):
    results: list[DeliveryOut]
    hasMore: bool


class TestOut(ResponseModel):
    eventId: str
    deliveryId: str
    status: Literal["pending"]


class SettingsOut(ResponseModel):
    creditsLowThreshold: int
