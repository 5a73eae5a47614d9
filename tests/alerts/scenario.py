"""The monitoring and alert lifecycle's world and steps (test_scenario.py checks each step).

The handles are found by a deterministic search of the simulated world (tests/alerts/
predict.py replays what ingest stores and scores), so the scenario knows in advance which
days bring new outlier posts. Each step does what the scenario does at that moment, driven
by the world's clock and by what `sors scheduler run-once` does (tick, run the queued jobs,
tick again), and returns what it saw; a step's test first runs the steps before it.
"""

from __future__ import annotations

import email
import email.policy
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest

from sors.platforms.sim.world import SimWorld
from tests.alerts.predict import Replay, hit_days
from tests.factories.world import rows, run_once, set_time

WORLD = SimWorld(0)
T0 = datetime(2026, 6, 1, 5, 0, tzinfo=UTC)
TZ = "America/New_York"  # UTC-4 in June: send hour 9 is 13:00 UTC
MAX_DAYS = 6


def day_at(d: int, hour_utc: int) -> datetime:
    return T0.replace(hour=0) + timedelta(days=d, hours=hour_utc)


def crawl_times(days: int) -> list[datetime]:
    # Seeded at T0; first refresh on day 1 at 12:00 UTC, then every day at 13:00 UTC.
    return [T0, day_at(1, 12)] + [day_at(d, 13) for d in range(2, days + 1)]


def _candidates(prefix: str, max_period_days: float):
    # The world's growth shapes (sim/trajectories.py) make steady hitters rarer: look further.
    for i in range(1000):
        handle = f"{prefix}{i}"
        if not WORLD.is_stable_handle("tiktok", handle):
            continue
        if WORLD.account("tiktok", handle).period <= max_period_days * 86400:
            yield handle


def pick_new_posts(prefix: str, at: datetime) -> str:
    """A handle that publishes between T0 and `at`."""
    for handle in _candidates(prefix, 2.0):
        replay = Replay("tiktok", handle)
        replay.crawl(T0)
        if replay.crawl(at):
            return handle
    raise AssertionError("no handle publishes in time")


def pick_outlier() -> str:
    """A handle with a >= 3x post (three_months) published within 7 days at its first
    refresh: the alert defaults."""
    for handle in _candidates("outlier.x", 3.0):
        if hit_days("tiktok", handle, crawl_times(1), threshold=3.0, age_days=7)[0]:
            return handle
    raise AssertionError("no outlier handle found")


def pick_steady() -> tuple[str, list[int]]:
    """A handle whose alert (>= 1.5x, posts up to 30 days old) gets new hits on at least
    three days; returns it with those days."""
    for handle in _candidates("steady.y", 1.5):
        counts = hit_days("tiktok", handle, crawl_times(MAX_DAYS), threshold=1.5, age_days=30)
        days = [d for d, n in enumerate(counts, start=1) if n]
        if len(days) >= 3 and days[0] == 1:
            return handle, days
    raise AssertionError("no steady handle found")


def new_emails(outbox: Path, before: set[Path]) -> list[email.message.EmailMessage]:
    files = sorted(set(outbox.glob("*.eml")) - before)
    before.update(files)
    return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default) for f in files]


def text_of(msg) -> str:
    return msg.get_body(("plain",)).get_content()


@functools.cache
def pick_handles() -> tuple[str, str, str, str, tuple[int, ...]]:
    """feed_a (publishes by day 1), feed_b (by day 3), the outlier, the steady creator and the
    days of its hits."""
    steady, steady_days = pick_steady()
    return (pick_new_posts("feed.a", day_at(1, 12)), pick_new_posts("feed.b", day_at(3, 13)),
            pick_outlier(), steady, tuple(steady_days))


@dataclass
class Lifecycle:
    """The scenario's world (four seeded creators, an account with 2,000 credits, the
    outbox) and what its steps leave behind: the two alerts and the digest."""

    client: httpx.AsyncClient
    db: Any
    runtime: Any
    account_id: str
    h: dict[str, str]
    pids: dict[str, str]
    outbox: Path
    seen: set[Path]
    x: dict[str, Any] = field(default_factory=dict)  # the outlier's alert, as created
    y: dict[str, Any] = field(default_factory=dict)  # the steady creator's alert
    digest_body: str = ""

    @property
    def handles(self) -> tuple[str, str, str, str, tuple[int, ...]]:
        return pick_handles()

    async def get(self, path: str) -> Any:
        return (await self.client.get(path, headers=self.h)).json()

    async def alerts(self) -> dict[str, dict[str, Any]]:
        return {a["alertId"]: a for a in (await self.get("/api/v1/alerts"))["results"]}

    async def tracked(self) -> dict[str, dict[str, Any]]:
        return {e["handle"]: e for e in (await self.get("/api/v1/tracking"))["results"]}

    async def before(self, step: Callable[[Lifecycle], Awaitable[Any]]) -> None:
        """Run the steps that come before `step` (theirs are checked by their own tests)."""
        for earlier in STEPS[: STEPS.index(step)]:
            await earlier(self)


# ---- the steps, in order: each does what the scenario does and returns what it saw


async def track_and_alert(s: Lifecycle) -> list[httpx.Response]:
    """Track two profiles; alerts on two more (they start daily monitoring themselves)."""
    feed_a, feed_b, outlier, steady, _ = s.handles
    made = [
        await s.client.post("/api/v1/tracking", headers=s.h, json={
            "platform": "tiktok", "handle": feed_a, "frequency": "daily"}),
        await s.client.post("/api/v1/tracking", headers=s.h, json={
            "url": f"https://www.tiktok.com/@{feed_b}", "frequency": "every_3_days"}),
        await s.client.post("/api/v1/alerts", headers=s.h, json={
            "email": "Owner@Example.com", "platform": "tiktok", "handle": outlier,
            "timezone": TZ, "sendHour": 9}),
        await s.client.post("/api/v1/alerts", headers=s.h, json={
            "email": "owner@example.com", "profileId": s.pids[steady], "minOutlierScore": 1.5,
            "postAgeDays": 30, "timezone": TZ, "sendHour": 9}),
    ]
    s.x, s.y = made[2].json().get("alert", {}), made[3].json().get("alert", {})
    return made


async def refresh_day_one(s: Lifecycle) -> tuple[dict[str, int], int, dict[str, int]]:
    """Day 1, 08:00 in New York: the refreshes run (A daily, X, Y; B not yet)."""
    await set_time(s.db, day_at(1, 12))
    return await run_once(s.runtime)


async def read_updates(s: Lifecycle) -> tuple[list[str], Any, Any, Any]:
    """Every post stored since monitoring began, and the updates feed read to its end (two
    pages, then once more)."""
    expected = [
        r["id"]
        for r in await rows(
            s.db,
            "SELECT p.id FROM posts p JOIN tracked_profiles t ON t.profile_id = p.profile_id "
            "WHERE t.account_id = :a AND p.first_seen_at > :t0 ORDER BY p.first_seen_at, p.id",
            a=s.account_id,
            t0=T0,
        )
    ]
    page1 = await s.get("/api/v1/tracking/updates?limit=2")
    page2 = await s.get("/api/v1/tracking/updates")
    return expected, page1, page2, await s.get("/api/v1/tracking/updates")


async def send_digest(s: Lifecycle) -> tuple[tuple[Any, int, Any], list[EmailMessage]]:
    """09:00 in New York: the scheduler's run, and the emails it sent."""
    await set_time(s.db, day_at(1, 13))
    ran = await run_once(s.runtime)
    sent = new_emails(s.outbox, s.seen)
    s.digest_body = text_of(sent[0]) if sent else ""
    return ran, sent


async def run_again(s: Lifecycle) -> tuple[tuple[Any, int, Any], list[EmailMessage]]:
    """A second run the same day."""
    await set_time(s.db, day_at(1, 15))
    return await run_once(s.runtime), new_emails(s.outbox, s.seen)


def stop_links(body: str) -> list[str]:
    """The digest's stop links (one per alert), as paths."""
    return [line.split()[-1].removeprefix("http://testserver") for line in body.splitlines()
            if line.startswith("Stop this alert:")]


async def stop_outlier_alert(s: Lifecycle) -> httpx.Response:
    """POST the stop link whose page names the outlier (no API key)."""
    for path in stop_links(s.digest_body):
        if f"@{s.handles[2]}" in (await s.client.get(path)).text:
            return await s.client.post(path)
    pytest.fail("no stop link names the outlier")


async def days_until_the_third_steady_email(
    s: Lifecycle,
) -> list[tuple[int, int, dict[str, Any] | None]]:
    """Day by day at 09:00 New York until the steady alert's third email (the day-1 digest
    was its first): per day, the emails sent and, on day 3, the updates."""
    days: list[tuple[int, int, dict[str, Any] | None]] = []
    digests_sent = 1
    for d in range(2, MAX_DAYS + 1):
        await set_time(s.db, day_at(d, 13))
        await run_once(s.runtime)
        got = len(new_emails(s.outbox, s.seen))
        updates = await s.get("/api/v1/tracking/updates?limit=100") if d == 3 else None
        days.append((d, got, updates))
        digests_sent += got
        if digests_sent == 3:
            break
    return days


STEPS: tuple[Callable[[Lifecycle], Awaitable[Any]], ...] = (
    track_and_alert, refresh_day_one, read_updates, send_digest, run_again,
    stop_outlier_alert, days_until_the_third_steady_email,
)
