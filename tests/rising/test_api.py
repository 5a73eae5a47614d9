"""Rising posts through HTTP on a second creator, driven by the scheduler and the simulated
clock: a rising alert pulls the monitoring refresh forward for a young post, detection finds
it rising, `post.rising` reaches a loopback webhook receiver and the digest an SMTP server on
loopback; then trends/rising and search's `sortBy: "rising"` find it, each billed on the one
paid path."""

from __future__ import annotations

import email
import email.policy
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from sors.billing.pricing import get_pricing
from sors.catalog.records.schemas import PostRecord
from sors.rising.schemas import Rising
from tests.alerts.test_alert_emails import smtp_server  # noqa: F401  (a fixture)
from tests.console.conftest import sign_in
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.smtp import Inbox
from tests.factories.world import run_once, set_time
from tests.rising.conftest import History, build
from tests.webhooks.conftest import loopback_allowed, receiver  # noqa: F401  (fixtures)
from tests.webhooks.helpers import create_endpoint

CREATOR = "rise.t240"
# Its early breakout, published 9 June 03:32:41 UTC.
BREAKOUT_AT = datetime(2026, 6, 9, 3, 32, 41, tzinfo=UTC)
ALERT_AT = BREAKOUT_AT - timedelta(hours=1, minutes=30)
OWNER = "owner@example.com"


@dataclass
class Outcome:
    account_id: str
    key: str
    alert_id: str
    endpoint: dict[str, Any]
    breakout_id: str
    inbox: Inbox
    received: list[dict[str, Any]]
    refreshes: int


@pytest.fixture
async def outcome(
    history: History, db, runtime, settings, receiver, smtp_server  # noqa: F811
) -> AsyncIterator[Outcome]:
    inbox, port = smtp_server
    await build(db, CREATOR, until=ALERT_AT)
    await set_time(db, ALERT_AT)
    account_id, key = await create_account(db, credits=500, email=OWNER)
    c, h = history.client, auth(key)
    endpoint = await create_endpoint(c, key, receiver.url, events=["post.rising"])
    r = await c.post("/api/v1/alerts", json={
        "email": OWNER, "platform": "tiktok", "handle": CREATOR, "trigger": "rising",
        "postAgeDays": 2, "timezone": "UTC", "sendHour": 0,
    }, headers=h)
    assert r.status_code == 200, r.text
    alert = r.json()["alert"]
    assert alert["trigger"] == "rising" and alert["startedTracking"]

    original = runtime.settings
    runtime.settings = settings.with_values(**{"email_backend": "smtp", "smtp_port": port})
    try:
        # The regular (daily) refresh a day after the alert sees the post at ~22.5 h, with one
        # snapshot; at 24 h of age the rising alert pulls the next refresh forward.
        for at in (ALERT_AT + timedelta(days=1), BREAKOUT_AT + timedelta(hours=24, minutes=5)):
            await set_time(db, at)
            await run_once(runtime)
            await run_jobs_until_idle(runtime, timeout=120)
    finally:
        runtime.settings = original
    [breakout] = await history.rows(
        """SELECT p.id FROM posts p JOIN profiles pr ON pr.id = p.profile_id
            WHERE pr.handle = :h AND p.published_at = :t""", h=CREATOR, t=BREAKOUT_AT)
    refreshes = len(await history.rows(
        "SELECT 1 FROM jobs WHERE type = 'refresh' AND account_id = :a", a=account_id))
    yield Outcome(account_id, key, alert["alertId"], endpoint, breakout["id"], inbox,
                  [x.verify(endpoint["secret"]) for x in receiver.of_type("post.rising")],
                  refreshes)


async def test_a_rising_alert_announces_the_young_post_and_trends_and_search_find_it(
    history: History, db, outcome: Outcome
) -> None:
    # One scenario (the alert, its refreshes and the crawls happen once), two checks.
    await _the_rising_alert_refreshed_early_and_announced_it(history, db, outcome)
    await _trends_rising_and_sort_by_rising_find_it_billed_on_the_paid_path(history, db, outcome)
    await _the_console_draws_it_against_its_creators_band(history, db, outcome)


async def _the_console_draws_it_against_its_creators_band(
    history: History, db, outcome: Outcome
) -> None:
    before, _ = await balance_and_ledger_sum(db, outcome.account_id)
    transport = httpx.ASGITransport(app=history.app, client=("127.0.0.1", 5603))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        await sign_in(c, outcome.key)
        empty = await c.get("/app/rising")
        assert empty.status_code == 200 and "Show rising posts" in empty.text
        r = await c.get("/app/rising", params={"go": "1", "platforms": "tiktok"})
    assert r.status_code == 200, r.text
    assert f'id="post-{outcome.breakout_id}"' in r.text
    assert '<svg class="chart"' in r.text and 'class="band"' in r.text
    assert 'class="median"' in r.text and 'class="line"' in r.text
    after, ledger = await balance_and_ledger_sum(db, outcome.account_id)
    assert before - after == get_pricing().cost("find_rising_posts") and after == ledger


async def _the_rising_alert_refreshed_early_and_announced_it(
    history: History, db, outcome: Outcome
) -> None:
    assert outcome.refreshes == 2  # the daily one, and one pulled forward at 24 h of age
    hits = await history.rows("SELECT post_id, score FROM alert_hits WHERE alert_id = :a",
                              a=outcome.alert_id)
    assert [x["post_id"] for x in hits] == [outcome.breakout_id]
    [event] = outcome.received
    data = event["data"]
    assert event["type"] == "post.rising"
    assert data["post"]["id"] == outcome.breakout_id
    assert data["profile"]["handle"] == CREATOR and data["profile"] == data["post"]["profile"]
    assert data["alert"]["alertId"] == outcome.alert_id
    proj = data["projection"]
    assert proj["rising"] is True and proj["accelerating"] is True
    assert proj["percentile_now"] > 90
    assert data["risingScore"] == proj["vs_median_now"] == hits[0]["score"]
    r = await history.client.get(f"/api/v1/posts/{outcome.breakout_id}",
                                 headers=auth(outcome.key))
    assert r.json()["projection"] == proj
    PostRecord.model_validate(r.json())  # the body is what the document says

    [(rcpts, raw)] = [(m.to, m.raw) for m in outcome.inbox.messages]
    assert rcpts == [OWNER]
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Subject"] == f"1 new rising post from @{CREATOR}"
    body = msg.get_body(preferencelist=("plain",)).get_content()
    assert "rising:" in body and "the creator's median at this age" in body

    # Billed like refreshes and digests today: 10 per refresh, 5 for the email (and the
    # GET of the post above).
    prices = get_pricing()
    spent = 2 * prices.cost("tracking_refresh") + prices.cost("alert_email") + prices.cost(
        "get_post"
    )
    assert await balance_and_ledger_sum(db, outcome.account_id) == (500 - spent, 500 - spent)


async def _trends_rising_and_sort_by_rising_find_it_billed_on_the_paid_path(
    history: History, db, outcome: Outcome
) -> None:
    h = auth(outcome.key)
    before, _ = await balance_and_ledger_sum(db, outcome.account_id)
    r = await history.client.post("/api/v1/trends/rising", json={"platforms": ["tiktok"]},
                                  headers=h)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == str(get_pricing().cost("find_rising_posts")) == "2"
    body = r.json()
    Rising.model_validate(body)
    assert body["maxAgeHours"] == 72
    [post] = [p for p in body["posts"] if p["handle"] == CREATOR]
    assert post["id"] == outcome.breakout_id
    assert post["projection"]["rising"] is True
    ages = [s["ageHours"] for s in post["snapshots"]]
    assert ages == sorted(ages)
    assert post["curve"] and all(c["p10"] <= c["p50"] <= c["p90"] for c in post["curve"])
    assert len({p["profile_id"] for p in body["posts"]}) == len(body["posts"])  # one per creator

    none = await history.client.post("/api/v1/trends/rising",
                                     json={"platforms": ["youtube"]}, headers=h)
    assert none.json()["posts"] == []
    bad = await history.client.post("/api/v1/trends/rising", json={"maxAgeHours": 500},
                                    headers=h)
    assert bad.status_code == 422 and bad.headers["x-credits-charged"] == "0"

    r = await history.client.post("/api/v1/search/content", json={
        "sortBy": "rising", "platforms": ["tiktok"], "pageSize": 100}, headers=h)
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    scores = [p["projection"]["vs_median_now"] for p in results]
    assert scores == sorted(scores, reverse=True) and all(p["projection"] for p in results)
    floor = 3.0
    r = await history.client.post("/api/v1/search/content", json={
        "sortBy": "rising", "minRisingScore": floor, "pageSize": 100}, headers=h)
    kept = r.json()["results"]
    assert [p["id"] for p in kept] == [
        p["id"] for p in results if p["projection"]["vs_median_now"] >= floor]
    assert outcome.breakout_id in {p["id"] for p in kept}
    after, ledger = await balance_and_ledger_sum(db, outcome.account_id)
    assert before - after == 2 + 2 + 1 + 1 and after == ledger  # the 422 charged nothing
