from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from sors.kit.schemas import RequestModel, ResponseModel
from sors.platforms.handles import handle_rules_text, handle_schema_rule
from sors.platforms.urls import PROFILE_URL_HOSTS_PATTERN

# "Name the profile by `url`, or by `platform` and `handle` together" (non-null values),
# as if/then: client generators turn a top-level anyOf into an untyped body.
_TEXT = {"type": "string"}
CRAWL_TARGET_RULE = {
    "if": {"not": {"required": ["url"], "properties": {"url": _TEXT}}},
    "then": {"required": ["platform", "handle"],
             "properties": {"platform": _TEXT, "handle": _TEXT}},
}


class CrawlIn(RequestModel):
    """A profile named by `url`, or by `platform` and `handle` together; several given must
    name the same profile (else 422)."""

    model_config = ConfigDict(
        json_schema_extra={"allOf": [handle_schema_rule(), CRAWL_TARGET_RULE]})

    platform: Literal["tiktok", "instagram", "youtube"] | None = None
    handle: Annotated[str | None, Field(
        min_length=1, max_length=100, description=handle_rules_text(), examples=["fit.anna"]
    )] = None
    url: Annotated[str | None, Field(
        min_length=1, max_length=2048,
        description="A TikTok, Instagram or YouTube profile URL (or a post URL that names its "
        "owner), e.g. https://www.tiktok.com/@fit.anna: read, never fetched. Short links are "
        "422 `short_link_not_supported`, any other URL 422 `unsupported_url`.",
        json_schema_extra={"pattern": PROFILE_URL_HOSTS_PATTERN},
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
