"""Discovery: reading each platform's listing of new creators (where the source has one) into
`catalog_candidates`, from which the keeper crawls them at a budgeted rate (sors.keeper.service).

Each platform's listing is read at most once per `catalog_discovery_interval_minutes` of the
process clock, for the interval since the last read; the first read only starts the cursor
(the past is not back-filled). A source without a listing (DiscoveryUnsupported) moves the
cursor on too, so it is asked again only at the next interval.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.config import Settings
from sors.platforms.base import PLATFORMS, DiscoveryUnsupported, PlatformAdapter, PlatformError

log = structlog.get_logger("sors.keeper.discovery")
LIMIT = 500  # handles per read: a listing that outgrows this is read again next interval

_CURSOR = text("SELECT through_at FROM catalog_discovery WHERE platform = :p FOR UPDATE")
_START = text("""
INSERT INTO catalog_discovery (platform, through_at) VALUES (:p, :t)
ON CONFLICT (platform) DO UPDATE SET through_at = EXCLUDED.through_at
""")
_ADD = text("""
INSERT INTO catalog_candidates (platform, handle, discovered_at, position)
SELECT CAST(:p AS text), h, :t, n FROM unnest(CAST(:handles AS text[])) WITH ORDINALITY AS u(h, n)
 WHERE NOT EXISTS (SELECT 1 FROM profiles pr WHERE pr.platform = CAST(:p AS text) AND pr.handle = h
                      AND pr.is_active)
ON CONFLICT DO NOTHING
""")


async def discover(
    session_factory: async_sessionmaker[AsyncSession], adapter: PlatformAdapter, now: datetime,
    settings: Settings,
) -> int:
    """Read due discovery listings; returns how many new candidates were recorded."""
    listing = getattr(adapter, "discover", None)
    if not settings.keeper.discovery or listing is None:
        return 0
    interval = timedelta(minutes=settings.keeper.discovery_interval_minutes)
    added = 0
    for platform in PLATFORMS:
        async with session_factory() as s, s.begin():
            since = (await s.execute(_CURSOR, {"p": platform})).scalar()
            if since is not None and now - since < interval:
                continue
            await s.execute(_START, {"p": platform, "t": now})
        if since is None:
            continue
        try:
            handles = list(await listing(platform, None, since=since, now=now, limit=LIMIT))
        except DiscoveryUnsupported as exc:
            log.info("discovery_unsupported", platform=platform, reason=str(exc))
            continue
        except PlatformError as exc:
            log.warning("discovery_failed", platform=platform, code=exc.code, error=str(exc))
            async with session_factory() as s, s.begin():
                await s.execute(_START, {"p": platform, "t": since})  # read it again later
            continue
        if handles:
            async with session_factory() as s, s.begin():
                result = await s.execute(_ADD, {"p": platform, "t": now, "handles": handles})
                added += getattr(result, "rowcount", 0) or 0
    return added
