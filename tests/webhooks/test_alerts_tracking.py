"""alert.triggered at detection (not at the digest) after a simulated viral post, and
tracking.new_posts after a refresh stores new posts, on the simulated world and clock."""

from __future__ import annotations

import httpx
import pytest

from tests.alerts.scenario import T0, day_at
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import rows, run_once, set_time
from tests.webhooks.helpers import alert_and_tracking, count, create_endpoint

pytestmark = pytest.mark.usefixtures("sim_time_restored")


async def test_alert_triggered_and_tracking_new_posts(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    _, key = await create_account(db, credits=1000, email="owner@example.com")
    h = auth(key)
    ep = await create_endpoint(
        client, key, receiver.url, events=["alert.triggered", "tracking.new_posts"])
    world = await alert_and_tracking(client, db, app, key)
    outlier, feed, pids, alert_id = world["outlier"], world["feed"], world["pids"], world["alertId"]

    # Day 1, 12:00 UTC: refreshes run, detection finds the viral post; the digest waits
    # for 23:00, the webhook does not.
    await set_time(db, day_at(1, 12))
    _, ran, second = await run_once(runtime)
    assert ran >= 2 and second["alerts.detect"] > 0 and second["alerts.digests"] == 0
    await run_jobs_until_idle(runtime, timeout=120)

    hits = await rows(
        db, "SELECT post_id FROM alert_hits WHERE alert_id = :a ORDER BY post_id", a=alert_id)
    triggered = [r.verify(ep["secret"]) for r in receiver.of_type("alert.triggered")]
    assert sorted(t["data"]["post"]["id"] for t in triggered) == [x["post_id"] for x in hits]
    for t in triggered:
        data = t["data"]
        assert data["alert"]["alertId"] == alert_id and data["alert"]["handle"] == outlier
        assert data["outlierScore"] >= 3.0
        fetched = await client.get(f"/api/v1/posts/{data['post']['id']}", headers=h)
        assert data["post"] == fetched.json()
    assert await count(db, "SELECT count(*) FROM email_outbox WHERE kind = 'alert_digest'") == 0

    news = [r.verify(ep["secret"])["data"] for r in receiver.of_type("tracking.new_posts")]
    by_profile = {n["profileId"]: n for n in news}
    assert pids[feed] in by_profile
    feed_news = by_profile[pids[feed]]
    stored = await rows(
        db, "SELECT id FROM posts WHERE profile_id = :p AND first_seen_at > :t ORDER BY id",
        p=pids[feed], t=T0)
    assert sorted(p["id"] for p in feed_news["posts"]) == [x["id"] for x in stored]
    assert feed_news["newPosts"] == len(stored) > 0 and feed_news["handle"] == feed
    assert all("profile_id" in p and "profile" not in p for p in feed_news["posts"])  # flattened
