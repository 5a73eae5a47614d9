"""The catalog keeper: queues refresh crawls of the most overdue profiles, and first crawls of
discovered creators, within a per-platform budget of crawls per hour.

The budget counts the keeper's own crawls in the last hour of the process clock (simulated
time under `sors demo`, real time live), per platform, in `catalog_crawls`. A per-platform
advisory lock makes concurrent keepers take turns, so two schedulers can neither exceed a
budget together nor queue one refresh twice (and the jobs' open-dedupe index refuses a
second open refresh of a profile anyway). A profile with any open crawl, whoever asked for
it, is skipped. Keeper jobs carry origin `catalog`, no account and no charge: nothing
reaches any ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.catalog.ingest import spend
from sors.catalog.ingest.freshness import TIERS, Policy
from sors.config import Settings
from sors.keeper import young
from sors.kit.ids import new_id
from sors.platforms import sources
from sors.platforms.base import PLATFORMS
from sors.queue.repository import NOTIFY_CHANNEL

# Why the keeper crawls a profile: it is due again, a young post of it passed an age worth
# a look (sors.keeper.young), or discovery found it.
CrawlKind = Literal["refresh", "young", "discovery"]
HOUR = timedelta(hours=1)
KEEP_LOG = timedelta(days=7)
MAX_ATTEMPTS = 3  # a keeper crawl that keeps failing waits for the profile's next turn
# Keeper crawls per platform per hour when the operator sets none. Live: what each
# platform's shared pacing sustains with room left for users (a crawl is a few requests;
# TikTok's pace is ~3-5 s, Instagram's ~6-10 s, YouTube's Data API 0.1-0.2 s). Simulated:
# the source answers in milliseconds and never refuses.
DEFAULT_CRAWLS_PER_HOUR = {
    "live": {"tiktok": 240, "instagram": 90, "youtube": 600},
    "sim": {"tiktok": 5000, "instagram": 5000, "youtube": 5000},
}
_LOCK_NS = 0x5052_4B50


def crawls_per_hour(settings: Settings, platform: str) -> int:
    own = settings.keeper.crawls_per_hour(platform)
    if own is not None:
        return int(own)
    return DEFAULT_CRAWLS_PER_HOUR[settings.platform_source][platform]


@dataclass(frozen=True)
class Due:
    profile_id: str
    handle: str
    tier: str
    overdue: timedelta


@dataclass
class KeeperPass:
    refreshes: int = 0
    discoveries: int = 0
    young: int = 0


_OVERDUE = text("""
SELECT id, handle, catalog_seen_at FROM profiles pr
 WHERE platform = :platform AND catalog_tier = :tier AND catalog_seen_at <= :cutoff
   AND is_active = :active AND (is_active OR renamed_to_id IS NULL)
   AND (data_source IS NULL OR (data_source = 'sim') = :simulated)
   AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.target = pr.platform || ':' || pr.handle
                      AND j.status IN ('pending', 'processing'))
 ORDER BY catalog_seen_at, id
 LIMIT :n
""")


async def overdue(
    session: AsyncSession, platform: str, now: datetime, policy: Policy, limit: int,
    *, simulated: bool = False,
) -> list[Due]:
    """Profiles past their tier's target age, most overdue first (at most `limit`), among
    those the running source can reach: the simulated world's own profiles in simulation,
    every other profile live (an imported creator is refreshed from the live platform, never
    re-invented by the simulated world)."""
    if limit <= 0:
        return []
    found: list[Due] = []
    for tier in TIERS:
        target = policy.targets[tier]
        rows = await session.execute(_OVERDUE, {
            "platform": platform, "tier": tier, "cutoff": now - target,
            "active": tier != "inactive", "n": limit, "simulated": simulated,
        })
        found += [Due(r[0], r[1], tier, now - r[2] - target) for r in rows]
    found.sort(key=lambda d: (-d.overdue, d.profile_id))
    return found[:limit]


_USED = text("""
SELECT count(*) AS total, count(*) FILTER (WHERE kind = 'discovery') AS discovered
  FROM catalog_crawls WHERE platform = :platform AND enqueued_at > :since
""")


async def used_last_hour(session: AsyncSession, platform: str, now: datetime) -> tuple[int, int]:
    """(keeper crawls, of which discoveries) queued for `platform` in the last hour."""
    row = (await session.execute(_USED, {"platform": platform, "since": now - HOUR})).one()
    return int(row[0]), int(row[1])


_INSERT_JOBS = text("""
WITH r AS (
    SELECT * FROM unnest(CAST(:ids AS text[]), CAST(:types AS text[]),
                         CAST(CAST(:payloads AS text[]) AS jsonb[]), CAST(:dedupe AS text[]),
                         CAST(:targets AS text[])) AS r(id, type, payload, dedupe_key, target)
)
INSERT INTO jobs (id, account_id, type, payload, dedupe_key, credits_charged, max_attempts,
                  origin, target)
SELECT r.id, NULL, r.type, r.payload, r.dedupe_key, 0, :attempts, 'catalog', r.target FROM r
 WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.target = r.target
                      AND j.status IN ('pending', 'processing'))
ON CONFLICT (dedupe_key) WHERE status IN ('pending','processing') AND dedupe_key IS NOT NULL
DO NOTHING
RETURNING id, target
""")
_LOG = text("""
INSERT INTO catalog_crawls (job_id, platform, handle, profile_id, kind, enqueued_at)
SELECT * FROM unnest(CAST(:ids AS text[]), CAST(:platforms AS text[]), CAST(:handles AS text[]),
                     CAST(:profiles AS text[]), CAST(:kinds AS text[]),
                     CAST(:ats AS timestamptz[]))
""")


async def _enqueue(
    session: AsyncSession, platform: str, kind: CrawlKind, items: list[tuple[str, str | None]],
    now: datetime,
) -> dict[str, str]:
    """Queue keeper crawls of (handle, profile id or None); returns {target: job id} of
    those queued (a profile another crawl just took is left out)."""
    if not items:
        return {}
    job_type = "crawl" if kind == "discovery" else "refresh"
    ids = [new_id("job") for _ in items]
    payloads = [
        orjson.dumps({"platform": platform, "handle": h, "catalog": kind,
                      **({"profileId": pid} if pid else {})}).decode()
        for h, pid in items
    ]
    dedupe = [f"catalog:{platform}:{h}" for h, _ in items]
    targets = [f"{platform}:{h}" for h, _ in items]
    rows = (await session.execute(_INSERT_JOBS, {
        "ids": ids, "types": [job_type] * len(items), "payloads": payloads, "dedupe": dedupe,
        "targets": targets, "attempts": MAX_ATTEMPTS,
    })).all()
    queued = {target: job_id for job_id, target in rows}
    if not queued:
        return queued
    by_target = {f"{platform}:{h}": (h, pid) for h, pid in items}
    logged = [(jid, *by_target[t]) for t, jid in queued.items()]
    await session.execute(_LOG, {
        "ids": [j for j, _, _ in logged], "platforms": [platform] * len(logged),
        "handles": [h for _, h, _ in logged], "profiles": [p for _, _, p in logged],
        "kinds": [kind] * len(logged), "ats": [now] * len(logged),
    })
    # One wake-up for the batch, delivered when this transaction commits.
    await session.execute(text("SELECT pg_notify(:c, :id)"), {"c": NOTIFY_CHANNEL, "id": ids[0]})
    return queued


_SEEN = text("""
UPDATE profiles SET catalog_seen_at = :now WHERE id = ANY(CAST(:ids AS text[]))
""")
_CANDIDATES = text("""
SELECT c.handle FROM catalog_candidates c
 WHERE c.platform = :platform AND c.job_id IS NULL
 ORDER BY c.discovered_at, c.position, c.handle
 LIMIT :n
""")
_TAKEN = text("""
UPDATE catalog_candidates c SET job_id = t.job_id
  FROM unnest(CAST(:handles AS text[]), CAST(:jobs AS text[])) AS t(handle, job_id)
 WHERE c.platform = :platform AND c.handle = t.handle
""")


async def _refresh(
    session: AsyncSession, platform: str, kind: CrawlKind, items: list[tuple[str, str]],
    now: datetime,
) -> int:
    """Refreshes of these (handle, profile id) queued; how many."""
    queued = await _enqueue(session, platform, kind, [(h, p) for h, p in items], now)
    # Seen now: a crawl that fails waits for the profile's next turn instead of the next tick.
    await session.execute(_SEEN, {"now": now, "ids": [
        p for h, p in items if f"{platform}:{h}" in queued]})
    return len(queued)


async def over_provider_budget(
    session: AsyncSession, platform: str, now: datetime, settings: Settings
) -> bool:
    """Whether the platform's crawls go through a paid data provider whose spend today
    (UTC) has reached the operator's budget (`apify_daily_usd_budget`): then the keeper
    queues nothing for it until tomorrow. Users' own crawls still run (they pay credits)."""
    budget = settings.apify.daily_usd_budget
    if budget is None or settings.platform_source != "live":
        return False
    if sources.choose(settings, platform).source != "apify":
        return False
    return await spend.spent_since(session, "apify", spend.utc_day_start(now)) >= budget


async def keep_platform(
    session: AsyncSession, platform: str, now: datetime, settings: Settings, policy: Policy
) -> KeeperPass:
    """One keeper pass over one platform, in the caller's transaction."""
    out = KeeperPass()
    await session.execute(text("SELECT pg_advisory_xact_lock(:ns, hashtext(:p))"),
                          {"ns": _LOCK_NS, "p": platform})
    if await over_provider_budget(session, platform, now, settings):
        return out
    used, discovered = await used_last_hour(session, platform, now)
    left = crawls_per_hour(settings, platform) - used
    if left <= 0:
        return out
    simulated = settings.platform_source == "sim"
    # Young posts first (the whole catalog's rising posts depend on them), then the overdue.
    # At most half of what is left: the regular refreshes keep the rest.
    fresh = await young.due(session, platform, now,
                            min(-(-left // 2), settings.keeper.young_refreshes_per_tick),
                            simulated=simulated)
    out.young = await _refresh(session, platform, "young",
                               [(d.handle, d.profile_id) for d in fresh], now)
    left -= out.young
    due = await overdue(session, platform, now, policy, left, simulated=simulated)
    out.refreshes = await _refresh(session, platform, "refresh",
                                   [(d.handle, d.profile_id) for d in due], now)
    left -= out.refreshes
    room = min(left, settings.keeper.discoveries_per_hour - discovered)
    if room > 0:
        handles = [r[0] for r in await session.execute(
            _CANDIDATES, {"platform": platform, "n": room})]
        taken = await _enqueue(session, platform, "discovery", [(h, None) for h in handles], now)
        if handles:
            # A candidate some other crawl is taking is done too: it is in the catalog then.
            await session.execute(_TAKEN, {"platform": platform, "handles": handles, "jobs": [
                taken.get(f"{platform}:{h}", "elsewhere") for h in handles]})
        out.discoveries = len(taken)
    return out


async def prune(session: AsyncSession, now: datetime) -> None:
    await session.execute(text("DELETE FROM catalog_crawls WHERE enqueued_at < :t"),
                          {"t": now - KEEP_LOG})


async def keep(
    session_factory: async_sessionmaker[AsyncSession], now: datetime, settings: Settings
) -> dict[str, KeeperPass]:
    """A keeper pass over every platform, one short transaction each."""
    policy = Policy.from_settings(settings)
    out: dict[str, KeeperPass] = {}
    for platform in PLATFORMS:
        async with session_factory() as s, s.begin():
            out[platform] = await keep_platform(s, platform, now, settings, policy)
    async with session_factory() as s, s.begin():
        await prune(s, now)
    return out
