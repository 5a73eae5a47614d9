from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from sors.kit.schemas import RequestModel, ResponseModel
from sors.platforms.handles import handle_rules_text, handle_schema_rule


class CrawlIn(RequestModel):
    model_config = ConfigDict(json_schema_extra=handle_schema_rule())

    platform: Literal["tiktok", "instagram", "youtube"]
    handle: str = Field(
        min_length=1, max_length=100, description=handle_rules_text(), examples=["fit.anna"]
    )


class CrawlAlreadyTracked(ResponseModel):
    """The profile is tracked and active: nothing to crawl (1 credit)."""

    status: Literal["completed"]
    alreadyTracked: Literal[True]
    profileId: str
    jobRef: None


class CrawlQueued(ResponseModel):
    """A crawl job (40 credits, refunded if it fails): poll GET /api/v1/jobs/{jobRef}."""

    status: Literal["pending"]
    jobRef: str
    platform: Literal["tiktok", "instagram", "youtube"]
    handle: str
