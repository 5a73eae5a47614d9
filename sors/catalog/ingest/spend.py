"""What paid data-provider runs cost: each run is recorded when it ends (a failed run is
paid for too), and the keeper reads the day's total against the operator's budget."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.models import ProviderRun
from sors.platforms.base import SourceRun


async def record_run(
    session: AsyncSession, run: SourceRun, *, job_id: str | None, platform: str, handle: str,
    at: datetime,
) -> None:
    """Once per run id: a retried job that found the same run records nothing more."""
    if not run.run_id:
        return
    await session.execute(insert(ProviderRun).values(
        run_id=run.run_id, provider=run.provider, job_id=job_id, platform=platform,
        handle=handle, status=run.status[:16], items=run.items, cost_usd=run.cost_usd,
        started_at=at,
    ).on_conflict_do_nothing())


def utc_day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


async def spent_since(session: AsyncSession, provider: str, since: datetime) -> float:
    total = await session.scalar(
        select(func.coalesce(func.sum(ProviderRun.cost_usd), 0.0)).where(
            ProviderRun.provider == provider, ProviderRun.started_at >= since
        )
    )
    return float(total or 0.0)
