"""Per-platform request pacing: a minimum interval with jitter, and backoff after refusals.

One `Pacer` per platform (or per API) and process. Requests reserve the next free slot
synchronously, so concurrent tasks on one event loop never start closer together than the
interval, without a lock. After `RateLimited` the pacer backs off exponentially (capped) and
honours the platform's `retry_after` when it is longer. A backoff longer than
`max_inline_wait` is not slept through: callers get `RateLimited` at once, with the remaining
time as `retry_after`, so the job engine can reschedule instead of holding a worker.

Pacing is in-process: several worker processes each keep their own pace.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from sors.platforms.base import RateLimited

T = TypeVar("T")

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class PacingPolicy:
    min_interval: float  # seconds between the starts of two requests
    jitter: float = 0.0  # plus a uniform random 0..jitter seconds
    backoff_base: float = 30.0  # the first backoff after a refusal
    backoff_factor: float = 2.0
    backoff_cap: float = 900.0  # our own backoff never exceeds this (retry_after may)
    max_inline_wait: float = 60.0  # longer waits are handed back to the caller


# Conservative defaults: anonymous scraping gets refused quickly when it hurries.
DEFAULT_POLICIES: Mapping[str, PacingPolicy] = {
    "youtube_api": PacingPolicy(min_interval=0.1, jitter=0.1, backoff_base=60, backoff_cap=3600),
    "youtube": PacingPolicy(min_interval=1.5, jitter=1.0, backoff_base=60, backoff_cap=1800),
    "tiktok": PacingPolicy(min_interval=3.0, jitter=2.0, backoff_base=60, backoff_cap=1800),
    "instagram": PacingPolicy(min_interval=6.0, jitter=4.0, backoff_base=120, backoff_cap=3600),
}


class Pacer:
    def __init__(
        self,
        policy: PacingPolicy,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.policy = policy
        self._clock = clock
        self._sleep = sleep
        self._rng = rng
        self._next_slot = -math.inf
        self._blocked_until = -math.inf
        self._strikes = 0

    @property
    def strikes(self) -> int:
        """Refusals in a row since the last success."""
        return self._strikes

    def blocked_for(self) -> float:
        """Seconds left of the current backoff (0 when none)."""
        return max(0.0, self._blocked_until - self._clock())

    async def wait(self) -> float:
        """Wait for this request's slot; returns the seconds waited.

        Raises RateLimited when a backoff longer than `max_inline_wait` is in force.
        """
        now = self._clock()
        blocked = self._blocked_until - now
        if blocked > self.policy.max_inline_wait:
            raise RateLimited(
                "backing off after the platform refused requests", retry_after=blocked
            )
        start = max(now, self._next_slot, self._blocked_until)
        self._next_slot = start + self.policy.min_interval + self.policy.jitter * self._rng()
        delay = start - now
        if delay > 0:
            await self._sleep(delay)
        return max(delay, 0.0)

    def record_success(self) -> None:
        self._strikes = 0

    def record_rate_limited(self, retry_after: float | None = None) -> float:
        """Start (or extend) a backoff; returns its length in seconds."""
        p = self.policy
        backoff = min(p.backoff_cap, p.backoff_base * p.backoff_factor**self._strikes)
        self._strikes += 1
        wait = max(backoff, retry_after or 0.0)
        self._blocked_until = max(self._blocked_until, self._clock() + wait)
        return wait

    async def call(self, fn: Callable[[], Awaitable[T]], *, attempts: int = 2) -> T:
        """Run `fn` in its slot; after a refusal, wait the backoff and try again (if short)."""
        for attempt in range(1, attempts + 1):
            await self.wait()
            try:
                result = await fn()
            except RateLimited as exc:
                wait = self.record_rate_limited(exc.retry_after)
                if attempt >= attempts or wait > self.policy.max_inline_wait:
                    exc.retry_after = max(exc.retry_after or 0.0, wait)
                    raise
                continue
            self.record_success()
            return result
        raise AssertionError("unreachable")  # pragma: no cover


class PacerRegistry:
    """The pacers of one adapter, created on first use from their policies."""

    def __init__(
        self,
        policies: Mapping[str, PacingPolicy] | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self._policies = dict(DEFAULT_POLICIES)
        self._policies.update(policies or {})
        self._clock, self._sleep, self._rng = clock, sleep, rng
        self._pacers: dict[str, Pacer] = {}

    def get(self, key: str) -> Pacer:
        pacer = self._pacers.get(key)
        if pacer is None:
            policy = self._policies.get(key) or PacingPolicy(min_interval=1.0, jitter=1.0)
            pacer = Pacer(policy, clock=self._clock, sleep=self._sleep, rng=self._rng)
            self._pacers[key] = pacer
        return pacer
