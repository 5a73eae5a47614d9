"""Events reach a real receiver on loopback, signed (verified with the `standardwebhooks`
library), through the job engine: job.completed / job.failed of crawls, credits.low and
credits.added; retries on the simulated clock; disabling after the schedule, with one email."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from sors.billing import service as billing
from sors.webhooks.attempts import RETRY_SCHEDULE
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.accounts import sim_now
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import set_time
from tests.webhooks.helpers import count, create_endpoint, deliveries, tick

pytestmark = pytest.mark.usefixtures("sim_time_restored")
T0 = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


async def test_crawl_completed_and_failed_with_refund(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db, credits=100)
    h = auth(key)
    ep = await create_endpoint(client, key, receiver.url, events=["job.completed", "job.failed"])
    ok = (await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "hook.anna"}, headers=h)).json()
    bad = (await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "ghost.hook"}, headers=h)).json()
    await run_jobs_until_idle(runtime, timeout=120)  # the crawls, then the deliveries they queued

    completed, failed = receiver.of_type("job.completed"), receiver.of_type("job.failed")
    assert len(completed) == 1 and len(failed) == 1, receiver.received
    for r in completed + failed:
        body = r.verify(ep["secret"])
        assert r.id == body["id"] and r.id.startswith("evt_") and body["timestamp"].endswith("Z")
    done = completed[0].verify(ep["secret"])["data"]
    assert done == (await client.get(f"/api/v1/jobs/{ok['jobRef']}", headers=h)).json()
    assert done["status"] == "completed" and done["result"]["postsSeen"] > 0
    lost = failed[0].verify(ep["secret"])["data"]
    assert lost == (await client.get(f"/api/v1/jobs/{bad['jobRef']}", headers=h)).json()
    assert lost["error"]["code"] == "profile_not_found" and lost["creditsRefunded"] == 40
    # A signature from another secret does not verify.
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 43 + "=").verify(completed[0].body, completed[0].headers)
    log = await deliveries(client, key, ep["id"])
    assert {d["status"] for d in log} == {"succeeded"}
    assert all(d["responseStatus"] == 200 for d in log)
    assert all(d["attemptLog"][0]["durationMs"] >= 0 for d in log)


async def test_credits_low_and_added(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    account_id, key = await create_account(db, credits=130)
    h = auth(key)
    ep = await create_endpoint(client, key, receiver.url, events=["credits.low", "credits.added"])
    r = await client.put(
        "/api/v1/webhooks/settings", json={"creditsLowThreshold": 100}, headers=h)
    assert r.status_code == 200
    # 130 -> 90 crosses 100; 90 -> 50 is already below: one event.
    for handle in ("low.one", "low.two"):
        r = await client.post(
            "/api/v1/crawls", json={"platform": "tiktok", "handle": handle}, headers=h)
        assert r.status_code == 200
    async with db.transaction() as s:
        await billing.grant(s, account_id, 500, reason="support grant",
                            now=await sim_now(db))
    await run_jobs_until_idle(runtime, timeout=120)
    low, added = receiver.of_type("credits.low"), receiver.of_type("credits.added")
    assert len(low) == 1 and len(added) == 1, [r.payload["type"] for r in receiver.received]
    data = low[0].verify(ep["secret"])["data"]
    assert data["balance"] == 90 and data["threshold"] == 100
    assert data["entry"]["kind"] == "charge" and data["entry"]["credits"] == -40
    data = added[0].verify(ep["secret"])["data"]
    assert data["entry"]["kind"] == "grant" and data["entry"]["credits"] == 500
    assert data["balance"] == (await client.get("/api/v1/credits", headers=h)).json()["balance"]
    assert await balance_and_ledger_sum(db, account_id) == (data["balance"],) * 2


async def test_rolled_back_change_announces_nothing(
    client: httpx.AsyncClient, db, settings, receiver
) -> None:
    _, key = await create_account(db, credits=39)  # a crawl costs 40: 402, rolled back
    await create_endpoint(client, key, receiver.url)
    r = await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "nope.nope"}, headers=auth(key))
    assert r.status_code == 402
    assert await count(db, "SELECT count(*) FROM webhook_events") == 0


async def test_500_then_200_is_retried_on_the_clock(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    ep = await create_endpoint(client, key, receiver.url)
    receiver.statuses[:] = [500]
    r = await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=auth(key))
    assert r.status_code == 200
    await run_jobs_until_idle(runtime, timeout=120)
    [d] = await deliveries(client, key, ep["id"])
    assert d["status"] == "pending" and d["responseStatus"] == 500 and d["attempts"] == 1
    assert d["nextRetryAt"] == "2026-07-01T12:00:05Z"
    assert (await tick(runtime))["webhooks.retry"] == 0  # not due yet: the clock stands
    await set_time(db, T0 + timedelta(seconds=5))
    assert (await tick(runtime))["webhooks.retry"] == 1
    await run_jobs_until_idle(runtime, timeout=120)
    [d] = await deliveries(client, key, ep["id"])
    assert d["status"] == "succeeded" and d["attempts"] == 2
    assert [a["responseStatus"] for a in d["attemptLog"]] == [500, 200]
    first, second = receiver.received
    assert first.id == second.id == r.json()["eventId"] and first.body == second.body
    assert second.verify(ep["secret"])["type"] == "webhook.test"


async def test_always_failing_endpoint_is_disabled_and_owner_emailed_once(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db, email="hooks-owner@example.com")
    ep = await create_endpoint(client, key, receiver.url)
    receiver.default = 503
    outbox = settings.outbox_dir
    outbox.mkdir(parents=True, exist_ok=True)
    before = set(outbox.glob("*.eml"))
    tested = await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=auth(key))
    event_id = tested.json()["eventId"]
    await run_jobs_until_idle(runtime, timeout=120)
    now = T0
    for wait in RETRY_SCHEDULE:
        now += wait
        await set_time(db, now)
        assert (await tick(runtime))["webhooks.retry"] == 1
        await run_jobs_until_idle(runtime, timeout=120)
    assert now - T0 > timedelta(days=2, hours=18)  # about three days
    assert len(receiver.received) == len(RETRY_SCHEDULE) + 1
    assert {r.id for r in receiver.received} == {event_id}
    [d] = await deliveries(client, key, ep["id"])
    assert d["status"] == "failed" and d["attempts"] == len(RETRY_SCHEDULE) + 1
    assert d["nextRetryAt"] is None
    got = (await client.get(f"/api/v1/webhooks/{ep['id']}", headers=auth(key))).json()
    assert got["enabled"] is False and got["disabledReason"] == "delivery_failures"

    # Nothing more is attempted, however long we wait; one email, to the owner.
    await set_time(db, now + timedelta(days=5))
    assert (await tick(runtime))["webhooks.retry"] == 0
    new = sorted(set(outbox.glob("*.eml")) - before)
    msgs = [email.message_from_bytes(f.read_bytes(), policy=email.policy.default) for f in new]
    mine = [m for m in msgs if ep["id"] in m["Subject"]]
    assert len(mine) == 1 and mine[0]["To"] == "hooks-owner@example.com"
    assert "disabled" in mine[0].get_body(("plain",)).get_content()
    assert await count(db, "SELECT count(*) FROM email_outbox WHERE kind = 'webhook_disabled'") == 1

    # Re-enabled, a manual retry delivers the event (same webhook-id).
    receiver.default = 200
    h = auth(key)
    r = await client.patch(f"/api/v1/webhooks/{ep['id']}", json={"enabled": True}, headers=h)
    assert r.json()["disabledReason"] is None
    r = await client.post(
        f"/api/v1/webhooks/{ep['id']}/deliveries/{d['deliveryId']}/retry", headers=h)
    assert r.status_code == 200 and r.json()["status"] == "pending"
    await run_jobs_until_idle(runtime, timeout=120)
    [d] = await deliveries(client, key, ep["id"])
    assert d["status"] == "succeeded" and receiver.received[-1].id == event_id


async def test_rotation_signs_with_both_secrets_for_24h(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    h = auth(key)
    ep = await create_endpoint(client, key, receiver.url)
    rotated = await client.post(f"/api/v1/webhooks/{ep['id']}/rotate-secret", headers=h)
    new = rotated.json()["secret"]
    await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=h)
    await run_jobs_until_idle(runtime, timeout=120)
    first = receiver.received[-1]
    assert len(first.headers["webhook-signature"].split(" ")) == 2
    first.verify(ep["secret"])
    first.verify(new)
    await set_time(db, T0 + timedelta(hours=24, seconds=1))
    await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=h)
    await run_jobs_until_idle(runtime, timeout=120)
    later = receiver.received[-1]
    later.verify(new)
    with pytest.raises(WebhookVerificationError):
        later.verify(ep["secret"])


async def test_redirects_are_not_followed(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    ep = await create_endpoint(client, key, receiver.url)
    receiver.statuses[:] = [302]
    await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=auth(key))
    await run_jobs_until_idle(runtime, timeout=120)
    [d] = await deliveries(client, key, ep["id"])
    assert d["status"] == "pending" and d["responseStatus"] == 302 and "redirect" in d["error"]
    assert [r.path for r in receiver.received] == ["/hook"]  # /elsewhere was never asked


async def test_a_job_run_again_after_its_attempt_was_recorded_sends_nothing(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    """What the reaper does when a worker died after recording an attempt but before
    settling its job: the job runs again, and must not make a second, early attempt."""
    from sors.events import service as events

    await set_time(db, T0)
    _, key = await create_account(db)
    ep = await create_endpoint(client, key, receiver.url)
    receiver.statuses[:] = [500]
    await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=auth(key))
    await run_jobs_until_idle(runtime, timeout=120)
    [d] = await deliveries(client, key, ep["id"])
    assert d["attempts"] == 1 and len(receiver.received) == 1
    async with db.transaction() as s:
        await events.enqueue_attempt(s, d["deliveryId"], 0)  # the stale job, queued again
    assert await run_jobs_until_idle(runtime, timeout=120) == 1
    [d] = await deliveries(client, key, ep["id"])
    assert d["attempts"] == 1 and d["status"] == "pending" and len(receiver.received) == 1
