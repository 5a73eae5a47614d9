"""The monitoring and alert lifecycle end to end, on the simulated world, driven by its
clock and by what `sors scheduler run-once` does (tick, run the queued jobs, tick again).

The handles are found by a deterministic search of the simulated world (tests/alerts/
predict.py replays what ingest stores and scores), so the test knows in advance which days
bring new outlier posts; every assertion is then made on what the real pipeline did.
"""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from sors.platforms.sim.world import SimWorld
from tests.alerts.predict import Replay, hit_days
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import rows, run_once, scalar, seed_profile, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")

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


async def test_monitoring_and_viral_alert_lifecycle(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    feed_a = pick_new_posts("feed.a", day_at(1, 12))
    feed_b = pick_new_posts("feed.b", day_at(3, 13))
    outlier = pick_outlier()
    steady, steady_days = pick_steady()

    await set_time(db, T0)
    pids = {h: await seed_profile(db, "tiktok", h, T0) for h in (feed_a, feed_b, outlier, steady)}
    account_id, key = await create_account(db, credits=2000, email="owner@example.com")
    h = auth(key)
    outbox = settings.outbox_dir
    outbox.mkdir(parents=True, exist_ok=True)
    seen_files = set(outbox.glob("*.eml"))

    # --- track two profiles; alerts on two more (they start daily monitoring themselves)
    r = await client.post(
        "/api/v1/tracking",
        json={"platform": "tiktok", "handle": feed_a, "frequency": "daily"},
        headers=h,
    )
    assert r.status_code == 200, r.text
    r = await client.post(
        "/api/v1/tracking",
        json={"url": f"https://www.tiktok.com/@{feed_b}", "frequency": "every_3_days"},
        headers=h,
    )
    assert r.status_code == 200, r.text
    r = await client.post(
        "/api/v1/alerts",
        json={
            "email": "Owner@Example.com",
            "platform": "tiktok",
            "handle": outlier,
            "timezone": TZ,
            "sendHour": 9,
        },
        headers=h,
    )
    assert r.status_code == 200, r.text
    x = r.json()["alert"]
    assert r.json()["created"] is True
    assert (
        x["addressStatus"] == "confirmed" and x["startedTracking"] is True
    )  # the account's own address
    assert (x["minOutlierScore"], x["scoreWindow"], x["postAgeDays"], x["frequency"]) == (
        3.0,
        "three_months",
        7,
        "daily",
    )
    r = await client.post(
        "/api/v1/alerts",
        json={
            "email": "owner@example.com",
            "profileId": pids[steady],
            "minOutlierScore": 1.5,
            "postAgeDays": 30,
            "timezone": TZ,
            "sendHour": 9,
        },
        headers=h,
    )
    y = r.json()["alert"]
    tracked = {
        e["handle"]: e for e in (await client.get("/api/v1/tracking", headers=h)).json()["results"]
    }
    assert tracked[outlier]["startedBy"] == "alert" and tracked[outlier]["frequency"] == "daily"
    assert tracked[feed_a]["startedBy"] == "user" and len(tracked) == 4
    assert new_emails(outbox, seen_files) == []  # no confirmation for the account's own address

    # --- day 1, 08:00 in New York: refreshes run, outliers are found, no email before 09:00
    await set_time(db, day_at(1, 12))
    first, ran, second = await run_once(runtime)
    assert first["monitoring.refresh"] == 3 and ran == 3  # A (daily), X, Y; B not yet
    assert second["alerts.detect"] > 0 and second["alerts.digests"] == 0
    assert new_emails(outbox, seen_files) == []
    assert await balance_and_ledger_sum(db, account_id) == (2000 - 30, 2000 - 30)  # 3 refreshes

    # Updates: every post stored since monitoring began, once, oldest stored first.
    expected = [
        r["id"]
        for r in await rows(
            db,
            "SELECT p.id FROM posts p JOIN tracked_profiles t ON t.profile_id = p.profile_id "
            "WHERE t.account_id = :a AND p.first_seen_at > :t0 ORDER BY p.first_seen_at, p.id",
            a=account_id,
            t0=T0,
        )
    ]
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM posts WHERE profile_id = :p AND first_seen_at > :t",
            p=pids[feed_a],
            t=T0,
        )
        > 0
    )
    page1 = (await client.get("/api/v1/tracking/updates?limit=2", headers=h)).json()
    page2 = (await client.get("/api/v1/tracking/updates", headers=h)).json()
    assert [p["id"] for p in page1["results"] + page2["results"]] == expected
    assert page1["hasMore"] is (len(expected) > 2) and page2["hasMore"] is False
    assert (await client.get("/api/v1/tracking/updates", headers=h)).json()["results"] == []

    # --- 09:00 in New York: the digest goes out, with the outlier posts, 5 credits
    await set_time(db, day_at(1, 13))
    first, ran, second = await run_once(runtime)
    assert ran == 0 and first["alerts.digests"] == 1
    [digest] = new_emails(outbox, seen_files)
    assert digest["To"] == "owner@example.com"
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert digest["List-Unsubscribe"].startswith("<http://testserver/alerts/stop/")
    assert (
        digest["X-Sors-Idempotency-Key"].strip()
        == f"digest:{account_id}:owner@example.com:2026-06-02"
    )
    body = text_of(digest)
    hits = await rows(
        db,
        "SELECT h.alert_id, h.post_id, p.score_three_months AS score, p.published_at "
        "FROM alert_hits h JOIN posts p ON p.id = h.post_id WHERE h.digest_id IS NOT NULL",
    )
    assert {hit["alert_id"] for hit in hits} == {x["alertId"], y["alertId"]}
    for hit in hits:
        # Simulated posts have no platform page: the link leads to the demo's own page.
        assert f"http://testserver/sim/posts/{hit['post_id']}" in body
        if hit["alert_id"] == x["alertId"]:
            assert hit["score"] >= 3.0 and hit["published_at"] >= day_at(1, 12) - timedelta(days=7)
    assert f"@{outlier}" in body and "views" in body
    charges = await rows(
        db,
        "SELECT delta, skill FROM ledger_entries WHERE account_id = :a AND skill = 'alert_email'",
        a=account_id,
    )
    assert charges == [{"delta": -5, "skill": "alert_email"}]
    assert await balance_and_ledger_sum(db, account_id) == (2000 - 35, 2000 - 35)

    # A second run the same day sends nothing.
    await set_time(db, day_at(1, 15))
    first, ran, second = await run_once(runtime)
    assert first["alerts.digests"] == second["alerts.digests"] == 0 and ran == 0
    assert new_emails(outbox, seen_files) == []

    # --- the stop link of the outlier alert: GET shows a button and changes nothing, POST stops
    alerts = {
        a["alertId"]: a for a in (await client.get("/api/v1/alerts", headers=h)).json()["results"]
    }
    assert alerts[x["alertId"]]["emailsSent"] == 1 and alerts[x["alertId"]]["pendingHits"] == 0
    # One stop link per alert in the digest; the page names the alert's profile.
    stop_links = [
        line.split()[-1] for line in body.splitlines() if line.startswith("Stop this alert:")
    ]
    assert len(stop_links) == 2
    path_x = None
    for link in stop_links:
        page = await client.get(link.removeprefix("http://testserver"))
        assert page.status_code == 200 and '<form method="post"' in page.text
        if f"@{outlier}" in page.text:
            path_x = link.removeprefix("http://testserver")
    assert path_x is not None
    still = {
        a["alertId"]: a["status"]
        for a in (await client.get("/api/v1/alerts", headers=h)).json()["results"]
    }
    assert still == {x["alertId"]: "active", y["alertId"]: "active"}
    done = await client.post(path_x)  # no API key
    assert done.status_code == 200 and "stopped" in done.text
    alerts = {
        a["alertId"]: a for a in (await client.get("/api/v1/alerts", headers=h)).json()["results"]
    }
    assert (
        alerts[x["alertId"]]["status"] == "ended"
        and alerts[x["alertId"]]["endedReason"] == "stopped"
    )
    tracked = {
        e["handle"] for e in (await client.get("/api/v1/tracking", headers=h)).json()["results"]
    }
    assert outlier not in tracked and steady in tracked  # the stopped alert's monitoring stopped

    # --- day by day at 09:00 New York until the steady alert's third email ends it
    digests_sent = 1
    for d in range(2, MAX_DAYS + 1):
        await set_time(db, day_at(d, 13))
        first, ran, second = await run_once(runtime)
        got = new_emails(outbox, seen_files)
        assert len(got) == (1 if d in steady_days else 0), (d, steady_days)
        digests_sent += len(got)
        if d == 3:  # B's first refresh (every 3 days) brought its new posts to the feed
            updates = (await client.get("/api/v1/tracking/updates?limit=100", headers=h)).json()
            assert any(p["handle"] == feed_b for p in updates["results"])
        if digests_sent == 3:
            break
    assert d == steady_days[2]
    ys = (await client.get("/api/v1/alerts", headers=h)).json()["results"]
    y_now = next(a for a in ys if a["alertId"] == y["alertId"])
    assert y_now["status"] == "ended" and y_now["endedReason"] == "emails_exhausted"
    assert y_now["emailsSent"] == 3
    tracked = {
        e["handle"] for e in (await client.get("/api/v1/tracking", headers=h)).json()["results"]
    }
    assert tracked == {feed_a, feed_b}  # the tracking the alert started stopped with it
    n_charges = await scalar(
        db,
        "SELECT count(*) FROM ledger_entries WHERE account_id = :a AND skill = 'alert_email'",
        a=account_id,
    )
    assert n_charges == 3
    balance, ledger = await balance_and_ledger_sum(db, account_id)
    assert balance == ledger

    # Nothing more for the ended alerts, whatever comes.
    await set_time(db, day_at(d + 1, 13))
    await run_once(runtime)
    assert new_emails(outbox, seen_files) == []
