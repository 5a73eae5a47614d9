"""What the operator sees of the catalog keeper: `sors catalog status` (with the state of
search by meaning: vectors, the backlog, the index over them) and the Prometheus metrics (a
staleness histogram per platform, keeper crawls by outcome).

Everything is read from PostgreSQL, so any API process shows the whole fleet's state, and
ages are measured on the process clock (simulated time in simulation).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, NotRequired, TypedDict

from prometheus_client import Counter
from prometheus_client.core import REGISTRY, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.freshness import Policy
from sors.catalog.vectors import embeddings
from sors.catalog.vectors import index as vector_index
from sors.config import Settings
from sors.keeper import service as keeper
from sors.keeper import young
from sors.kit.clock import isoformat
from sors.platforms.base import PLATFORMS

# Incremented by the worker that ran the crawl (crawling.tasks).
KEEPER_CRAWLS = Counter("sors_catalog_keeper_crawls_total",
                        "Catalog keeper crawls run, by outcome", ["platform", "outcome"])

_TIERS = text("""
SELECT platform, catalog_tier AS tier, count(*) AS profiles,
       count(*) FILTER (WHERE last_crawled_at >= :now - CASE catalog_tier
            WHEN 'hot' THEN :hot WHEN 'active' THEN :active WHEN 'silent' THEN :silent
            ELSE :inactive END) AS within,
       min(last_crawled_at) AS oldest
  FROM profiles WHERE catalog_tier IS NOT NULL AND catalog_tier <> 'renamed'
 GROUP BY 1, 2
""")
_LAST_HOUR = text("""
SELECT c.platform, CASE WHEN j.status = 'completed' AND j.result ? 'skipped' THEN 'skipped'
                        ELSE j.status END AS outcome, count(*) AS n
  FROM catalog_crawls c JOIN jobs j ON j.id = c.job_id
 WHERE c.enqueued_at > :since
 GROUP BY 1, 2
""")
_YOUNG_LAST_HOUR = text("""
SELECT platform, count(*) FROM catalog_crawls
 WHERE kind = 'young' AND enqueued_at > :since GROUP BY 1
""")
_WAITING = text("""
SELECT platform, count(*) FROM catalog_candidates WHERE job_id IS NULL GROUP BY 1
""")
OUTCOMES = ("pending", "processing", "completed", "skipped", "failed")


class TierStatus(TypedDict):
    profiles: int
    withinTarget: int
    share: float | None  # of the tier's profiles within its target age
    targetHours: float
    oldest: str | None  # the oldest crawl's time


class Budget(TypedDict):
    perHour: int
    usedLastHour: int
    share: NotRequired[float | None]


class YoungStatus(TypedDict):
    """Young posts looked at early (sors.keeper.young): the budget per tick, the keeper's
    young-post refreshes of the last hour, and coverage: of the posts published 24-48 h ago,
    how many were seen at least twice before 24 h of age."""

    perTick: int
    lastHour: int
    posts: int
    seenTwice: int
    coverage: float | None


class PlatformStatus(TypedDict):
    tiers: dict[str, TierStatus]
    lastHour: dict[str, int]  # keeper crawls queued in the last hour, by outcome
    discoveredWaiting: int
    budget: Budget
    young: YoungStatus


class CatalogStatus(TypedDict):
    at: str | None
    platforms: dict[str, PlatformStatus]
    meaning: NotRequired[Mapping[str, object] | None]  # search by meaning's vectors


async def status(session: AsyncSession, now: datetime, settings: Settings) -> CatalogStatus:
    policy = Policy.from_settings(settings)
    t = policy.targets
    out: CatalogStatus = {"at": isoformat(now), "platforms": {}}
    for p in PLATFORMS:
        out["platforms"][p] = {
            "tiers": {}, "lastHour": dict.fromkeys(OUTCOMES, 0), "discoveredWaiting": 0,
            "budget": {"perHour": keeper.crawls_per_hour(settings, p), "usedLastHour": 0},
            "young": {"perTick": settings.keeper.young_refreshes_per_tick, "lastHour": 0,
                      "posts": 0, "seenTwice": 0, "coverage": None},
        }
    rows = await session.execute(_TIERS, {"now": now, "hot": t["hot"], "active": t["active"],
                                          "silent": t["silent"], "inactive": t["inactive"]})
    for r in rows:
        out["platforms"][r.platform]["tiers"][r.tier] = {
            "profiles": r.profiles, "withinTarget": r.within,
            "share": round(r.within / r.profiles, 4) if r.profiles else None,
            "targetHours": t[r.tier].total_seconds() / 3600,
            "oldest": isoformat(r.oldest) if r.oldest else None,
        }
    for platform, outcome, n in await session.execute(_LAST_HOUR, {"since": now - keeper.HOUR}):
        out["platforms"][platform]["lastHour"][outcome] = n
    for platform, n in await session.execute(_WAITING):
        out["platforms"][platform]["discoveredWaiting"] = n
    for p in PLATFORMS:
        used, _ = await keeper.used_last_hour(session, p, now)
        budget = out["platforms"][p]["budget"]
        budget["usedLastHour"] = used
        budget["share"] = round(used / budget["perHour"], 4) if budget["perHour"] else None
    for platform, n in await session.execute(_YOUNG_LAST_HOUR, {"since": now - keeper.HOUR}):
        out["platforms"][platform]["young"]["lastHour"] = n
    for platform, (posts, twice) in (await young.coverage(session, now)).items():
        y = out["platforms"][platform]["young"]
        y.update(posts=posts, seenTwice=twice, coverage=round(twice / posts, 4) if posts else None)
    model = embeddings.embedder_or_none(settings)
    out["meaning"] = (await vector_index.describe(session, model.key)
                      if model is not None and await embeddings.available(session) else None)
    return out


# ---- Prometheus ---------------------------------------------------------------------------

STALENESS_BUCKETS = (3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400,
                     14 * 86400, 30 * 86400, 90 * 86400)
_STALENESS = text(f"""
SELECT platform, count(*) AS n, coalesce(sum(age), 0) AS total,
       {", ".join(f"count(*) FILTER (WHERE age <= {b}) AS b{i}"
                  for i, b in enumerate(STALENESS_BUCKETS))}
  FROM (SELECT platform, extract(epoch FROM CAST(:now AS timestamptz) - last_crawled_at) AS age
          FROM profiles WHERE is_active AND last_crawled_at IS NOT NULL) x
 GROUP BY platform
""")


class CatalogCollector(Collector):
    """Yields the last snapshot `refresh` read (the /metrics route refreshes it first)."""

    def __init__(self) -> None:
        self.staleness: dict[str, Row[Any]] = {}
        self.last_hour: dict[tuple[str, str], int] = {}

    async def refresh(self, session: AsyncSession, now: datetime) -> None:
        self.staleness = {r.platform: r for r in await session.execute(_STALENESS, {"now": now})}
        self.last_hour = {(p, o): n for p, o, n in await session.execute(
            _LAST_HOUR, {"since": now - keeper.HOUR})}

    def collect(self) -> Iterator[Metric]:  # prometheus_client's collector protocol
        hist = HistogramMetricFamily(
            "sors_catalog_staleness_seconds",
            "Age of each active profile's data (time since its last crawl)",
            labels=["platform"])
        for platform, r in sorted(self.staleness.items()):
            buckets = [(str(b), getattr(r, f"b{i}")) for i, b in enumerate(STALENESS_BUCKETS)]
            hist.add_metric([platform], [*buckets, ("+Inf", r.n)], float(r.total))
        yield hist
        gauge = GaugeMetricFamily(
            "sors_catalog_keeper_crawls_last_hour",
            "Catalog keeper crawls queued in the last hour, by platform and current outcome",
            labels=["platform", "outcome"])
        for (platform, outcome), n in sorted(self.last_hour.items()):
            gauge.add_metric([platform, outcome], n)
        yield gauge


COLLECTOR = CatalogCollector()
REGISTRY.register(COLLECTOR)
