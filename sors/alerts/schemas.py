"""Viral alert request body and record (camelCase, docs/API.md, "Viral alerts")."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Literal
from zoneinfo import available_timezones

from pydantic import Field, field_validator

from sors.alerts.models import Alert
from sors.catalog.models import WINDOWS, Profile
from sors.email.addresses import normalize_email
from sors.kit.clock import isoformat
from sors.kit.schemas import ResponseModel, Timestamp
from sors.monitoring.schemas import Frequency, ProfileTarget

Window = Literal[tuple(WINDOWS)]  # type: ignore[valid-type]
Trigger = Literal["score", "rising"]

SETTINGS_FIELDS = (
    "trigger",
    "minOutlierScore",
    "scoreWindow",
    "postAgeDays",
    "expiresInDays",
    "sendHour",
    "timezone",
    "frequency",
)


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


class AlertIn(ProfileTarget):
    email: Annotated[
        str,
        Field(min_length=3, max_length=320, json_schema_extra={"format": "email"},
              examples=["me@example.com"]),
    ]
    trigger: Trigger = Field(
        "score", description="`score`: a post reaches minOutlierScore in scoreWindow; `rising`: "
        "a post runs above the creator's p90 (and 3× its median) at its age and accelerates, "
        "before any outlier score (docs/API.md, \"Rising posts\")")
    minOutlierScore: Annotated[float, Field(ge=1.5, le=1_000_000, allow_inf_nan=False)] = 3.0
    scoreWindow: Window = "three_months"
    postAgeDays: Annotated[int, Field(ge=1, le=30)] = 7
    expiresInDays: Annotated[int, Field(ge=1, le=90)] = 30
    sendHour: Annotated[int, Field(ge=0, le=23)] = 9
    timezone: Annotated[
        str,
        # Not an enum in the document: ~600 names (some differing only in punctuation,
        # which breaks client generators' enum classes).
        Field(min_length=1, max_length=64, examples=["Europe/Berlin"],
              description="An IANA time zone name (e.g. Europe/Berlin, UTC); else 422"),
    ] = "UTC"
    frequency: Frequency = "daily"

    @field_validator("email")
    @classmethod
    def _email(cls, v: str) -> str:
        return normalize_email(v)

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, v: str) -> str:
        if v not in _zones():
            raise ValueError(f"{v!r} is not an IANA time zone name (e.g. Europe/Berlin, UTC)")
        return v


class AlertOut(ResponseModel):
    alertId: str
    email: str
    profileId: str
    platform: Literal["tiktok", "instagram", "youtube"]
    handle: str
    trigger: Trigger
    minOutlierScore: float
    scoreWindow: Window
    postAgeDays: int
    expiresInDays: int
    sendHour: int
    timezone: str
    frequency: Frequency
    addressStatus: Literal["confirmed", "pending_confirmation"]
    status: Literal["active", "ended"]
    endedReason: Literal["emails_exhausted", "expired", "stopped", "deleted"] | None
    endedAt: Timestamp | None
    expiresAt: Timestamp | None
    emailsSent: int
    pendingHits: int
    startedTracking: bool
    keyId: str | None = Field(
        description="The API key the digests are charged through, within its daily spend "
        "cap: the key that saved the alert last; null: charged with no key")
    createdAt: Timestamp

    @classmethod
    def of(cls, alert: Alert, profile: Profile, *, confirmed: bool, pending_hits: int) -> AlertOut:
        return cls(
            alertId=alert.id,
            email=alert.email,
            profileId=profile.id,
            platform=profile.platform,
            handle=profile.handle,
            trigger=alert.trigger,
            minOutlierScore=alert.min_outlier_score,
            scoreWindow=alert.score_window,
            postAgeDays=alert.post_age_days,
            expiresInDays=alert.expires_in_days,
            sendHour=alert.send_hour,
            timezone=alert.timezone,
            frequency=alert.frequency,
            addressStatus="confirmed" if confirmed else "pending_confirmation",
            status=alert.status,
            endedReason=alert.ended_reason,
            endedAt=isoformat(alert.ended_at),
            expiresAt=isoformat(alert.expires_at),
            emailsSent=alert.emails_sent,
            pendingHits=pending_hits,
            startedTracking=alert.started_tracking,
            keyId=alert.key_id,
            createdAt=isoformat(alert.created_at),
        )


class AlertUpsert(ResponseModel):
    created: bool = Field(description="false: this account's alert for the profile and "
                          "address existed and its settings were updated")
    alert: AlertOut


class AlertList(ResponseModel):
    results: list[AlertOut]
