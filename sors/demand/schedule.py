"""The demand feature's scheduled check: comment texts kept without a vector (the demo's
build keeps them so, and a model change leaves every text without one) get theirs, a
budget per tick."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.demand import service
from sors.kit.runtime import Runtime

PER_TICK = 5000


async def embed_comments(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    return await service.embed_pending(session, rt.settings, limit=PER_TICK)


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (("demand.embed_comments", embed_comments),)
