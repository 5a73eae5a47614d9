from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from sors.billing.pricing import get_pricing
from sors.kit.schemas import RequestModel, ResponseModel, trimmed_length


class FeedbackReceived(ResponseModel):
    feedbackId: str
    status: Literal["received"]


class FeedbackIn(RequestModel):
    message: Annotated[
        str,
        Field(
            description="10-2000 characters after trimming",
            json_schema_extra={"pattern": trimmed_length(10, 2000)},
        ),
    ]
    skill: Annotated[
        str | None,
        Field(
            max_length=64,
            description="The skill the report is about (a key of GET /api/v1/pricing)",
            json_schema_extra={"enum": [*get_pricing().skills, None]},
        ),
    ] = None
    wantsUpdate: bool = False

    @field_validator("message")
    @classmethod
    def _trim(cls, v: str) -> str:
        v = v.strip()
        if not 10 <= len(v) <= 2000:
            raise ValueError("must be 10-2000 characters after trimming")
        return v

    @field_validator("skill")
    @classmethod
    def _known_skill(cls, v: str | None) -> str | None:
        if v is not None and v not in get_pricing().skills:
            raise ValueError("must be one of the skill keys listed by GET /api/v1/pricing")
        return v

