"""Per-platform pacing with a fake clock: intervals, jitter, backoff, Retry-After."""

from __future__ import annotations

import asyncio
import time

import pytest

from sors.platforms.base import RateLimited, TransientError
from sors.platforms.live.pacing import DEFAULT_POLICIES, Pacer, PacerRegistry, PacingPolicy


class FakeClock:
    """A monotonic clock that only moves when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def pacer(clock: FakeClock, rng: float = 0.0, **policy: float) -> Pacer:
    defaults = {"min_interval": 1.0, "jitter": 0.0, "backoff_base": 30.0, "backoff_cap": 240.0}
    defaults.update(policy)
    return Pacer(PacingPolicy(**defaults), clock=clock, sleep=clock.sleep, rng=lambda: rng)


async def test_first_request_does_not_wait_then_min_interval() -> None:
    clock = FakeClock()
    p = pacer(clock)
    waited = [await p.wait() for _ in range(3)]
    assert waited == [0.0, 1.0, 1.0]
    assert clock.sleeps == [1.0, 1.0]


async def test_time_already_passed_counts() -> None:
    clock = FakeClock()
    p = pacer(clock, min_interval=2.0)
    await p.wait()
    clock.now += 1.5  # the request itself took 1.5 s
    assert await p.wait() == pytest.approx(0.5)
    clock.now += 10
    assert await p.wait() == 0.0


async def test_jitter_is_added() -> None:
    clock = FakeClock()
    p = pacer(clock, rng=0.5, min_interval=1.0, jitter=4.0)
    await p.wait()
    assert await p.wait() == pytest.approx(3.0)  # 1 + 0.5 * 4


async def test_concurrent_waiters_get_distinct_slots() -> None:
    clock = FakeClock()
    slept: list[float] = []

    async def parked(seconds: float) -> None:  # yields, but time stands still meanwhile
        slept.append(seconds)
        await asyncio.sleep(0)

    p = Pacer(PacingPolicy(min_interval=1.0), clock=clock, sleep=parked, rng=lambda: 0.0)
    delays = await asyncio.gather(*(p.wait() for _ in range(4)))
    assert sorted(delays) == [0.0, 1.0, 2.0, 3.0]
    assert sorted(slept) == [1.0, 2.0, 3.0]


async def test_exponential_backoff_with_cap() -> None:
    clock = FakeClock()
    p = pacer(clock, backoff_base=30.0, backoff_cap=100.0)
    assert [p.record_rate_limited() for _ in range(4)] == [30.0, 60.0, 100.0, 100.0]
    assert p.strikes == 4
    p.record_success()
    assert p.strikes == 0
    assert p.record_rate_limited() == 30.0


async def test_retry_after_wins_when_longer() -> None:
    clock = FakeClock()
    p = pacer(clock, backoff_base=30.0, backoff_cap=100.0)
    assert p.record_rate_limited(retry_after=500.0) == 500.0  # the platform's word beats our cap
    assert p.blocked_for() == 500.0
    p2 = pacer(FakeClock(), backoff_base=30.0)
    assert p2.record_rate_limited(retry_after=5.0) == 30.0


async def test_short_backoff_is_slept_through() -> None:
    clock = FakeClock()
    p = pacer(clock, min_interval=1.0, backoff_base=20.0, max_inline_wait=60.0)
    await p.wait()
    p.record_rate_limited()
    assert await p.wait() == pytest.approx(20.0)
    assert p.blocked_for() == 0.0


async def test_long_backoff_is_handed_back() -> None:
    clock = FakeClock()
    p = pacer(clock, backoff_base=300.0, backoff_cap=900.0, max_inline_wait=60.0)
    p.record_rate_limited()
    clock.now += 100
    with pytest.raises(RateLimited) as caught:
        await p.wait()
    assert caught.value.retry_after == pytest.approx(200.0)
    assert clock.sleeps == []  # nobody was parked


async def test_call_retries_once_after_a_short_refusal() -> None:
    clock = FakeClock()
    p = pacer(clock, min_interval=1.0, backoff_base=10.0)
    attempts = 0

    async def flaky() -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise RateLimited("slow down")
        return "ok"

    assert await p.call(flaky) == "ok"
    assert attempts == 2
    assert clock.sleeps == [10.0]  # the backoff, which also covers the interval
    assert p.strikes == 0


async def test_call_gives_up_with_retry_after() -> None:
    clock = FakeClock()
    p = pacer(clock, backoff_base=10.0, max_inline_wait=60.0)

    async def refused() -> None:
        raise RateLimited("slow down", retry_after=3600)

    with pytest.raises(RateLimited) as caught:
        await p.call(refused)
    assert caught.value.retry_after == 3600
    assert clock.sleeps == []
    # The pacer remembers: the next request is refused at once, without asking the platform.
    with pytest.raises(RateLimited):
        await p.wait()


async def test_call_attempts_exhausted() -> None:
    clock = FakeClock()
    p = pacer(clock, backoff_base=5.0)
    calls = 0

    async def refused() -> None:
        nonlocal calls
        calls += 1
        raise RateLimited("slow down")

    with pytest.raises(RateLimited) as caught:
        await p.call(refused, attempts=2)
    assert calls == 2
    assert caught.value.retry_after == 10.0  # second strike: 5 * 2


async def test_other_failures_pass_through_untouched() -> None:
    clock = FakeClock()
    p = pacer(clock)

    async def broken() -> None:
        raise TransientError("502")

    with pytest.raises(TransientError):
        await p.call(broken)
    assert p.strikes == 0 and p.blocked_for() == 0.0


def test_registry() -> None:
    registry = PacerRegistry({"tiktok": PacingPolicy(min_interval=9.0)})
    assert registry.get("tiktok") is registry.get("tiktok")
    assert registry.get("tiktok").policy.min_interval == 9.0
    assert registry.get("instagram").policy == DEFAULT_POLICIES["instagram"]
    assert (
        registry.get("youtube_api").policy.min_interval
        < registry.get("youtube").policy.min_interval
    )
    assert registry.get("elsewhere").policy.min_interval == 1.0


async def test_real_clock_smoke() -> None:
    """With the real clock and sleep, the interval holds (a few milliseconds)."""
    p = Pacer(PacingPolicy(min_interval=0.005))
    started = time.monotonic()
    for _ in range(3):
        await p.wait()
    assert time.monotonic() - started >= 0.009
