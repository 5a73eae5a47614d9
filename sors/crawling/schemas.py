from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field
from pydantic.config import JsonDict

from sors.kit.schemas import RequestModel, ResponseModel, one_of_sets, together
from sors.platforms.handles import handle_rules_text, handle_schema_rule
from sors.platforms.urls import PROFILE_URL_PATTERN

# "Name the profile by `url`, or by `platform` and `handle` together" (non-null values).
CRAWL_TARGET_RULE: JsonDict = {"allOf": [one_of_sets(["url"], ["platform", "handle"]),
                               *together("platform", "handle"), handle_schema_rule()]}


class CrawlIn(RequestModel):
    """A profile named by `url`, or by `platform` and `handle` together; several given must
    name the same profile (else 422)."""

    model_config = ConfigDict(json_schema_extra=CRAWL_TARGET_RULE)

    platform: Literal["tiktok", "instagram", "youtube"] | None = None
    handle: Annotated[str | None, Field(
        min_length=1, max_length=100, description=handle_rules_text(), examples=["fit.anna"]
    )] = None
    url: Annotated[str | None, Field(
        min_length=1, max_length=2048,
        description="A TikTok, Instagram or YouTube profile URL, e.g. "
        "https://www.tiktok.com/@fit.anna: read, never fetched. The pattern states the "
        "canonical forms; the parser also reads any letter case, profile tabs (/reels, "
        "/videos) and a TikTok post URL (which names its owner). Short links are 422 "
        "`short_link_not_supported`, any other URL 422 `unsupported_url`.",
        json_schema_extra={"pattern": PROFILE_URL_PATTERN},
        examples=["https://www.tiktok.com/@fit.anna"],
    )] = None


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
