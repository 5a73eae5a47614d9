"""What the alerts tests share: a profile with an outlier, its recrawls, bare profiles, the
scheduler's tick, and reading the outbox and the alert list."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from sors.jobs.scheduler import Scheduler
from tests.factories import auth, create_account
from tests.factories.world import hand_crawl, ingest, outlier_posts, set_time

T0 = datetime(2026, 7, 6, 10, 0, tzinfo=UTC)
OWNER = "owner@example.com"


async def outlier_profile(db, handle: str) -> str:
    return await ingest(db, hand_crawl(handle, outlier_posts(handle, T0), T0))


async def recrawl(db, handle: str, at: datetime) -> None:
    """Another completed crawl of the profile (its outlier is still there)."""
    await ingest(db, hand_crawl(handle, outlier_posts(handle, T0), at))


async def tick(runtime) -> dict[str, int]:
    return await Scheduler(runtime).tick()


def outbox_files(settings) -> set[Path]:
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    return set(settings.outbox_dir.glob("*.eml"))


def read_new(settings, before: set[Path]) -> list[email.message.EmailMessage]:
    files = sorted(outbox_files(settings) - before)
    before.update(files)
    return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default) for f in files]


def text_of(msg) -> str:
    return msg.get_body(("plain",)).get_content()


def link_in(text: str, marker: str) -> str:
    line = next(ln for ln in text.splitlines() if marker in ln)
    url = next(w for w in line.split() if w.startswith("http"))
    return url.removeprefix("http://testserver")


async def alerts_of(client, key) -> dict[str, dict]:
    r = await client.get("/api/v1/alerts", headers=auth(key))
    assert r.status_code == 200
    return {a["alertId"]: a for a in r.json()["results"]}


async def bare_profiles(db, n: int, prefix: str) -> list[str]:
    ids = [f"prf_{prefix}{i:03d}" for i in range(n)]
    async with db.transaction() as s:
        for i, pid in enumerate(ids):
            await s.execute(
                text(
                    "INSERT INTO profiles (id, platform, handle, last_crawled_at)"
                    " VALUES (:i, 'tiktok', :h, :t)"
                ),
                {"i": pid, "h": f"{prefix}.{i}", "t": T0},
            )
    return ids


async def alert_with_a_hit(
    client, db, handle: str, credits: int, after: timedelta
) -> tuple[str, str, dict]:
    """At T0 a profile with an outlier, an account with `credits` and the owner's alert on it
    (digests from 00:00 UTC); `after` that, a crawl that brings the hit, and the clock there.
    Returns (account id, key, the alert's record)."""
    await set_time(db, T0)
    await outlier_profile(db, handle)
    account_id, key = await create_account(db, credits=credits, email=OWNER)
    r = await client.post(
        "/api/v1/alerts",
        json={"email": OWNER, "platform": "tiktok", "handle": handle, "sendHour": 0},
        headers=auth(key),
    )
    await recrawl(db, handle, T0 + after)
    await set_time(db, T0 + after)
    return account_id, key, r.json()["alert"]
