"""The fixed cost of a billed call, step by step, measured in process (`bench/overhead.py`).

Each step runs `n` times on what the server uses for it — the app's engine (SQLAlchemy async
session over psycopg, the pool of `kit.db.make_engine`), the key cache, the in-memory rate
limiter, the billing service — against the overhead database, with nothing else running in
this process. Per call: the median and the mean in milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

STEPS = (
    ("key_db", "key lookup, from the database (a cache miss: once per key per second)"),
    ("key_cached", "key lookup, cache hit"),
    ("rate_limit", "rate limit (in-memory window, hit + window stats)"),
    ("bill_objects", "the bill and its ride-along (Python: ids, clock, request)"),
    ("read_stmt", "unbilled: the read (`GET /posts/{id}` statement)"),
    ("read_commit", "unbilled: commit (nothing written)"),
    ("ride_stmt", "billed: the read with the charge riding along"),
    ("ride_settle", "billed: settling the charge (credits.low check)"),
    ("ride_commit", "billed: commit (charge written, no wait for the WAL flush)"),
    ("charge_stmt", "charge as its own statement (routes without a ride-along)"),
    ("charge_commit", "commit after it, durable (routes that create work)"),
)


def _summary(samples: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(samples), "mean": statistics.fmean(samples)}


async def measure(url: str, data_dir: str, api_key: str, post_id: str, n: int) -> dict[str, Any]:
    import sors.models_registry  # noqa: F401  (every table)
    from bench.search_world import _settings
    from sors.accounts.keycache import KeyCache
    from sors.accounts.service import authenticate
    from sors.billing import service as billing
    from sors.billing.models import ChargeRequest
    from sors.catalog.records import repository as catalog_repo
    from sors.kit.db import Database, make_engine
    from sors.kit.ratelimit import RateLimiter

    db = Database(make_engine(_settings(url, data_dir), url))
    out: dict[str, list[float]] = {key: [] for key, _ in STEPS}

    async def timed(key: str, step: Callable[[], Awaitable[Any]]) -> Any:
        started = time.perf_counter()
        result = await step()
        out[key].append((time.perf_counter() - started) * 1000)
        return result

    async def key_from_db() -> Any:
        async with db.session() as s:
            return await authenticate(s, api_key)

    principal = await key_from_db()
    cache = KeyCache(ttl=3600)
    limiter = RateLimiter(None, 10**9, 10**9)

    def request(read_only: bool) -> ChargeRequest:
        return ChargeRequest(account_id=principal.account_id, amount=1, skill="get_post",
                             request_id="req_bench", key_id=principal.key_id, read_only=read_only,
                             at=datetime.now(UTC))

    async def bill_objects() -> Any:
        return billing.ride_along(request(True))

    try:
        for i in range(n + n // 10):  # the first tenth warms pools, caches and prepared plans
            warm = i < n // 10
            await timed("key_db", key_from_db)
            await timed("key_cached", lambda: cache.resolve(db, api_key))
            await timed("rate_limit", lambda: limiter.hit("key", principal.key_id))
            ride = await timed("bill_objects", bill_objects)
            async with db.sessionmaker() as s:
                await timed("read_stmt", lambda s=s: catalog_repo.get_post(s, post_id))
                await timed("read_commit", s.commit)
            async with db.sessionmaker() as s:
                await timed("ride_stmt", lambda s=s, r=ride: catalog_repo.get_post(
                    s, post_id, ride_along=r))
                await timed("ride_settle", lambda s=s, r=ride: billing.settle_ride(s, r))
                await timed("ride_commit", s.commit)
            async with db.sessionmaker() as s:
                await timed("charge_stmt", lambda s=s: billing.charge(s, request(False)))
                await timed("charge_commit", s.commit)
            if warm:
                for samples in out.values():
                    samples.clear()
            await asyncio.sleep(0)
    finally:
        await db.dispose()
    return {key: _summary(samples) for key, samples in out.items()}


def rows(steps: dict[str, Any]) -> list[str]:
    return [
        f"| {title} | {steps[key]['p50']:.3f} | {steps[key]['mean']:.3f} |"
        for key, title in STEPS
    ]


def derived(steps: dict[str, Any]) -> dict[str, float]:
    """What charging adds to a paid read, from the medians: the ride-along statement over the
    plain read, the settle, the commit with a write over the commit without, and the bill."""
    p = {k: v["p50"] for k, v in steps.items()}
    parts = {
        "statement": p["ride_stmt"] - p["read_stmt"],
        "settle": p["ride_settle"],
        "commit": p["ride_commit"] - p["read_commit"],
        "bill": p["bill_objects"],
    }
    parts["total"] = sum(parts.values())
    return parts
