"""Platform pacing shared by every worker process: one schedule of request slots per
platform, kept in PostgreSQL (or Redis when configured), so N workers on any machines send
one platform's requests at one pace instead of N.

A request reserves the next free slot (`max(next_slot, now, blocked_until)`) and moves
`next_slot` on by the policy's interval plus jitter, in one atomic step on the store; the
store's own clock decides, so machines with skewed clocks still agree. Refusals push
`blocked_until` back exponentially, for everyone.

User crawls first: a background request (a catalog keeper crawl, `background` set) only
takes a slot that is free *now*; it never queues ahead. So while user requests keep the
schedule busy, keeper requests wait, and they use the gaps users leave.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import text

from sors.config import Settings
from sors.kit.db import Database
from sors.platforms.base import RateLimited
from sors.platforms.live.pacing import DEFAULT_POLICIES, PacingPolicy

T = TypeVar("T")

# Set by the crawl task for keeper crawls: their requests yield to everyone else's.
background: contextvars.ContextVar[bool] = contextvars.ContextVar("pacing_background",
                                                                  default=False)


class PacingStore(Protocol):
    async def reserve(self, key: str, step: float, *, background: bool,
                      max_wait: float) -> tuple[float, float, bool]:
        """(seconds until the slot, seconds of backoff left, whether a slot was taken)."""
        ...

    async def refused(self, key: str, policy: PacingPolicy, retry_after: float | None) -> float:
        ...

    async def succeeded(self, key: str) -> None:
        ...


_PG_ENSURE = text("""
INSERT INTO platform_pacing (key, next_slot, blocked_until)
VALUES (:k, clock_timestamp(), clock_timestamp()) ON CONFLICT DO NOTHING
""")
_PG_RESERVE = text("""
WITH cur AS (
    SELECT key, clock_timestamp() AS now, blocked_until,
           greatest(next_slot, clock_timestamp(), blocked_until) AS start
      FROM platform_pacing WHERE key = :k FOR UPDATE
), decided AS (
    SELECT *, NOT (extract(epoch FROM blocked_until - now) > :max_wait
                   OR (:bg AND start > now)) AS take
      FROM cur
)
UPDATE platform_pacing p
   SET next_slot = CASE WHEN d.take THEN d.start + make_interval(secs => :step)
                        ELSE p.next_slot END
  FROM decided d WHERE p.key = d.key
RETURNING extract(epoch FROM d.start - d.now)::float8,
          extract(epoch FROM d.blocked_until - d.now)::float8, d.take
""")
_PG_REFUSED = text("""
UPDATE platform_pacing
   SET strikes = strikes + 1,
       blocked_until = greatest(blocked_until, clock_timestamp() + make_interval(secs =>
           greatest(least(:cap, :base * power(:factor, strikes)), :retry_after)))
 WHERE key = :k
RETURNING greatest(least(:cap, :base * power(:factor, strikes - 1)), :retry_after)::float8
""")


class PostgresPacingStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._known: set[str] = set()

    async def reserve(self, key: str, step: float, *, background: bool,
                      max_wait: float) -> tuple[float, float, bool]:
        async with self.db.transaction() as s:
            if key not in self._known:
                await s.execute(_PG_ENSURE, {"k": key})
                self._known.add(key)
            row = (await s.execute(_PG_RESERVE, {"k": key, "step": step, "bg": background,
                                                 "max_wait": max_wait})).one()
        return float(row[0]), float(row[1]), bool(row[2])

    async def refused(self, key: str, policy: PacingPolicy, retry_after: float | None) -> float:
        async with self.db.transaction() as s:
            await s.execute(_PG_ENSURE, {"k": key})
            row = (await s.execute(_PG_REFUSED, {
                "k": key, "cap": policy.backoff_cap, "base": policy.backoff_base,
                "factor": policy.backoff_factor, "retry_after": retry_after or 0.0})).one()
        return float(row[0])

    async def succeeded(self, key: str) -> None:
        async with self.db.transaction() as s:
            await s.execute(text("UPDATE platform_pacing SET strikes = 0 "
                                 "WHERE key = :k AND strikes > 0"), {"k": key})


_LUA_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local h = redis.call('HMGET', KEYS[1], 'next', 'blocked')
local nxt = tonumber(h[1]) or 0
local blocked = tonumber(h[2]) or 0
local start = math.max(nxt, now, blocked)
local take = 1
if (blocked - now) > tonumber(ARGV[3]) or (ARGV[1] == '1' and start > now) then
  take = 0
else
  redis.call('HSET', KEYS[1], 'next', tostring(start + tonumber(ARGV[2])))
end
redis.call('EXPIRE', KEYS[1], 86400)
return {tostring(start - now), tostring(blocked - now), take}
"""
_LUA_REFUSED = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local strikes = tonumber(redis.call('HGET', KEYS[1], 'strikes')) or 0
local wait = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) * tonumber(ARGV[3]) ^ strikes)
wait = math.max(wait, tonumber(ARGV[4]))
local blocked = tonumber(redis.call('HGET', KEYS[1], 'blocked')) or 0
redis.call('HSET', KEYS[1], 'blocked', tostring(math.max(blocked, now + wait)),
           'strikes', tostring(strikes + 1))
redis.call('EXPIRE', KEYS[1], 86400)
return tostring(wait)
"""


class RedisPacingStore:
    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis

        self.redis = aioredis.from_url(url)
        self._reserve = self.redis.register_script(_LUA_RESERVE)
        self._refused = self.redis.register_script(_LUA_REFUSED)

    @staticmethod
    def _key(key: str) -> str:
        return f"sors:pacing:{key}"

    async def reserve(self, key: str, step: float, *, background: bool,
                      max_wait: float) -> tuple[float, float, bool]:
        delay, blocked, take = await self._reserve(
            keys=[self._key(key)], args=["1" if background else "0", step, max_wait])
        return float(delay), float(blocked), bool(int(take))

    async def refused(self, key: str, policy: PacingPolicy, retry_after: float | None) -> float:
        wait = await self._refused(keys=[self._key(key)], args=[
            policy.backoff_cap, policy.backoff_base, policy.backoff_factor, retry_after or 0.0])
        return float(wait)

    async def succeeded(self, key: str) -> None:
        await self.redis.hset(self._key(key), "strikes", "0")


class SharedPacer:
    """The `Pacer` interface (`call`) over a shared store."""

    def __init__(self, key: str, policy: PacingPolicy, store: PacingStore, *,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 rng: Callable[[], float] = random.random) -> None:
        self.key, self.policy, self.store = key, policy, store
        self._sleep, self._rng = sleep, rng

    async def wait(self) -> float:
        """Wait for this request's slot; returns the seconds waited. RateLimited when a
        backoff longer than `max_inline_wait` is in force."""
        p = self.policy
        waited = 0.0
        while True:
            step = p.min_interval + p.jitter * self._rng()
            delay, blocked, took = await self.store.reserve(
                self.key, step, background=background.get(), max_wait=p.max_inline_wait)
            if blocked > p.max_inline_wait:
                raise RateLimited("backing off after the platform refused requests",
                                  retry_after=blocked)
            if took:
                if delay > 0:
                    await self._sleep(delay)
                return waited + max(delay, 0.0)
            # A background request found the schedule busy: look again when it frees up.
            pause = max(delay, 0.01) + 0.05 * self._rng()
            await self._sleep(pause)
            waited += pause

    async def call(self, fn: Callable[[], Awaitable[T]], *, attempts: int = 2) -> T:
        for attempt in range(1, attempts + 1):
            await self.wait()
            try:
                result = await fn()
            except RateLimited as exc:
                wait = await self.store.refused(self.key, self.policy, exc.retry_after)
                if attempt >= attempts or wait > self.policy.max_inline_wait:
                    exc.retry_after = max(exc.retry_after or 0.0, wait)
                    raise
                continue
            await self.store.succeeded(self.key)
            return result
        raise AssertionError("unreachable")  # pragma: no cover


class SharedPacerRegistry:
    """`PacerRegistry` for the live adapter, backed by one shared store."""

    def __init__(self, store: PacingStore,
                 policies: dict[str, PacingPolicy] | None = None) -> None:
        self.store = store
        self._policies = {**DEFAULT_POLICIES, **(policies or {})}
        self._pacers: dict[str, SharedPacer] = {}

    def get(self, key: str) -> SharedPacer:
        pacer = self._pacers.get(key)
        if pacer is None:
            policy = self._policies.get(key) or PacingPolicy(min_interval=1.0, jitter=1.0)
            pacer = self._pacers[key] = SharedPacer(key, policy, self.store)
        return pacer


def registry_for(settings: Settings, db: Database | None) -> Any:
    """The pacers a live adapter uses: shared (PostgreSQL or Redis) unless the operator
    chose per-process pacing, or there is no database to share through."""
    from sors.platforms.live.pacing import PacerRegistry

    backend = settings.sources.pacing_backend
    redis_url = settings.redis.url
    if backend is None:
        backend = "redis" if redis_url else "postgres"
    if backend == "redis" and redis_url:
        return SharedPacerRegistry(RedisPacingStore(redis_url))
    if backend == "postgres" and db is not None:
        return SharedPacerRegistry(PostgresPacingStore(db))
    return PacerRegistry()
