"""GET /api/v1/sources: what `sors doctor` says, for the operator's account in the API and
the console (free; any other account gets 404, as for anything it does not own)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from sqlalchemy import func, select

from sors.accounts.models import Account
from sors.catalog.ingest import spend
from sors.catalog.ingest.models import ProviderRun
from sors.keeper.schemas import PlatformSource, ProviderSpend, SourcesStatus
from sors.kit.errors import NotFound
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import Context, SorsRoute
from sors.platforms import doctor

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["operator"])
AccountId = Annotated[str, Depends(current_account_id)]


@router.get(
    "/sources",
    name="get_source_status",
    summary="The data sources' status (operator account only)",
    description="For each platform: the source the service uses live (web scrapers, YouTube's "
    "Data API or the Apify data provider) and why, each prerequisite checked with its fix "
    "(what `sors doctor` prints), and what the provider's runs cost today against the "
    "operator's budget. Only the operator's account (`sors accounts create --operator`, the "
    "demo's account) sees it; any other account gets 404. Free.",
    response_model=SourcesStatus,
    responses=problems(404),
)
async def source_status(ctx: Context, account_id: AccountId) -> SourcesStatus:
    session, settings, now = ctx.session, ctx.runtime.settings, ctx.now
    account = await session.get(Account, account_id)
    if account is None or not account.is_operator:
        raise NotFound("Not found.")
    day = spend.utc_day_start(now)
    runs = await session.scalar(select(func.count()).select_from(ProviderRun).where(
        ProviderRun.provider == "apify", ProviderRun.started_at >= day))
    return SourcesStatus(
        platformSource=settings.platform_source,
        platforms=[PlatformSource.model_validate(r.as_dict())
                   for r in doctor.report(settings, now=now)],
        spend=ProviderSpend(
            provider="apify",
            spentTodayUsd=round(await spend.spent_since(session, "apify", day), 6),
            runsToday=int(runs or 0),
            dailyBudgetUsd=settings.apify.daily_usd_budget,
        ),
    )
