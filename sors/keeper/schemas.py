"""The operator's view of the data sources (GET /api/v1/sources)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sors.kit.schemas import ResponseModel

CheckStatus = Literal["ok", "warning", "error"]


class SourceCheck(ResponseModel):
    name: str
    status: CheckStatus
    detail: str
    fix: str | None = Field(description="What to do about a failing check")


class PlatformSource(ResponseModel):
    platform: Literal["tiktok", "instagram", "youtube"]
    source: Literal["web", "api", "apify"] = Field(
        description="What serves the platform live: its web pages (scrapers), YouTube's Data "
        "API, or a data provider (Apify)"
    )
    reason: str = Field(description="Why this source: its setting, or what is configured")
    status: CheckStatus
    checks: list[SourceCheck]


class ProviderSpend(ResponseModel):
    provider: Literal["apify"]
    spentTodayUsd: float = Field(description="What the provider reported today's runs cost "
                                 "(UTC day), every run counted, failed ones too")
    runsToday: int
    dailyBudgetUsd: float | None = Field(description="SORS_APIFY_DAILY_USD_BUDGET: the "
                                         "keeper stops at it (null: no limit)")


class SourcesStatus(ResponseModel):
    platformSource: Literal["live", "sim"] = Field(
        description="sim: the simulated world answers every crawl; the platforms below are "
        "what live would use"
    )
    platforms: list[PlatformSource]
    spend: ProviderSpend
