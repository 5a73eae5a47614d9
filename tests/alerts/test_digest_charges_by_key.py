"""Digests are charged through the key that saved the alert, within its daily spend cap: a
digest the cap refuses keeps its hits and goes out (charged) the next UTC day; a revoked
key's alerts send nothing until a live key saves them again."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from tests.alerts.helpers import (
    OWNER,
    T0,
    alerts_of,
    outbox_files,
    outlier_profile,
    read_new,
    recrawl,
    tick,
)
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import hand_crawl, ingest, outlier_posts, rows, scalar, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")

NEXT_DAY = T0.replace(hour=0) + timedelta(days=1)  # 00:00 UTC after T0


async def _agent(client: httpx.AsyncClient, owner: str, **body: object) -> dict:
    r = await client.post("/api/v1/keys", json={"name": "agent", **body}, headers=auth(owner))
    assert r.status_code == 201, r.text
    return r.json()


async def _alert(client: httpx.AsyncClient, key: str, handle: str) -> dict:
    r = await client.post("/api/v1/alerts", json={
        "email": OWNER, "platform": "tiktok", "handle": handle, "sendHour": 0,
    }, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()["alert"]


async def _charges(db) -> list[dict]:
    return await rows(db, "SELECT key_id, skill, delta FROM ledger_entries "
                          "WHERE kind = 'charge' ORDER BY id")


async def test_a_digest_the_cap_refuses_keeps_its_hits_and_goes_out_the_next_day(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    seen = outbox_files(settings)
    await set_time(db, T0)
    await outlier_profile(db, "digest.capped")
    account_id, owner = await create_account(db, credits=100, email=OWNER)
    agent = await _agent(client, owner, dailyCreditCap=5)
    alert = await _alert(client, agent["apiKey"], "digest.capped")
    assert alert["keyId"] == agent["keyId"]
    # The agent spends 1 of its 5 today: a 5-credit digest no longer fits.
    post_id = await scalar(db, "SELECT id FROM posts WHERE views = 20000")
    r = await client.get(f"/api/v1/posts/{post_id}", headers=auth(agent["apiKey"]))
    assert r.status_code == 200 and r.headers["x-credits-charged"] == "1"

    await recrawl(db, "digest.capped", T0 + timedelta(hours=1))
    await set_time(db, T0 + timedelta(hours=1))
    done = await tick(runtime)
    assert done["alerts.detect"] == 1 and done["alerts.digests"] == 0
    assert read_new(settings, seen) == []
    a = (await alerts_of(client, owner))[alert["alertId"]]
    assert a["pendingHits"] == 1 and a["emailsSent"] == 0
    assert await balance_and_ledger_sum(db, account_id) == (99, 99)

    # Not again that UTC day; at 00:00 UTC the cap starts again and the digest goes out,
    # charged through the alert's key.
    await set_time(db, NEXT_DAY - timedelta(minutes=1))
    assert (await tick(runtime))["alerts.digests"] == 0
    await set_time(db, NEXT_DAY)
    assert (await tick(runtime))["alerts.digests"] == 1
    [digest] = read_new(settings, seen)
    assert digest["To"] == OWNER
    assert (await _charges(db))[-1] == {
        "key_id": agent["keyId"], "skill": "alert_email", "delta": -5}
    assert await balance_and_ledger_sum(db, account_id) == (94, 94)
    a = (await alerts_of(client, owner))[alert["alertId"]]
    assert a["pendingHits"] == 0 and a["emailsSent"] == 1


async def test_a_digest_is_paid_by_the_first_alert_key_whose_cap_allows_it(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    seen = outbox_files(settings)
    await set_time(db, T0)
    # Two creators with an outlier each (their posts published a minute apart: other ids).
    posts = {h: outlier_posts(h, T0 - timedelta(minutes=i))
             for i, h in enumerate(("digest.spent", "digest.owner"))}
    for h, p in posts.items():
        await ingest(db, hand_crawl(h, p, T0))
    account_id, owner = await create_account(db, credits=100, email=OWNER)
    agent = await _agent(client, owner, dailyCreditCap=0)  # may spend nothing
    await _alert(client, agent["apiKey"], "digest.spent")
    await _alert(client, owner, "digest.owner")
    for h, p in posts.items():
        await ingest(db, hand_crawl(h, p, T0 + timedelta(hours=1)))
    await set_time(db, T0 + timedelta(hours=1))
    done = await tick(runtime)
    assert done["alerts.detect"] == 2 and done["alerts.digests"] == 1
    [digest] = read_new(settings, seen)
    assert "@digest.spent" in str(digest.get_body(("plain",)).get_content())
    [own] = [k for k in (await client.get("/api/v1/keys", headers=auth(owner))).json()[
        "results"] if k["keyId"] != agent["keyId"]]
    assert await _charges(db) == [{"key_id": own["keyId"], "skill": "alert_email", "delta": -5}]
    assert await balance_and_ledger_sum(db, account_id) == (95, 95)


async def test_a_revoked_keys_alerts_send_nothing_until_a_live_key_saves_them(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    seen = outbox_files(settings)
    await set_time(db, T0)
    await outlier_profile(db, "digest.revoked")
    account_id, owner = await create_account(db, credits=100, email=OWNER)
    agent = await _agent(client, owner)
    alert = await _alert(client, agent["apiKey"], "digest.revoked")
    r = await client.delete(f"/api/v1/keys/{agent['keyId']}", headers=auth(owner))
    assert r.status_code == 200, r.text

    await recrawl(db, "digest.revoked", T0 + timedelta(hours=1))
    await set_time(db, T0 + timedelta(hours=1))
    done = await tick(runtime)
    assert done["alerts.detect"] == 1 and done["alerts.digests"] == 0
    assert read_new(settings, seen) == [] and await _charges(db) == []
    assert (await alerts_of(client, owner))[alert["alertId"]]["pendingHits"] == 1

    # The owner saves it again: the owner's key pays from now on, and the hit goes out.
    saved = await _alert(client, owner, "digest.revoked")
    assert saved["alertId"] == alert["alertId"] and saved["keyId"] != agent["keyId"]
    assert (await tick(runtime))["alerts.digests"] == 1
    assert len(read_new(settings, seen)) == 1
    assert await _charges(db) == [
        {"key_id": saved["keyId"], "skill": "alert_email", "delta": -5}]
    assert await balance_and_ledger_sum(db, account_id) == (95, 95)
