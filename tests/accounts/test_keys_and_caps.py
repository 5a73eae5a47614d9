"""An account's keys over the API, and daily spend caps per key: enforced by the charge's
own guarded statement, so they hold under truly parallel requests; reset at 00:00 UTC of
the service clock."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
import uvicorn
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.config import Settings
from sors.kit.db import Database
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.cluster import free_port
from tests.factories.world import set_time

AT = datetime(2026, 11, 1, tzinfo=UTC)


async def _tracked(db: Database, handle: str) -> dict[str, str]:
    async with db.transaction() as s:
        await ingest_crawls(s, [SimWorld(0).crawl("tiktok", handle, AT)])
    return {"platform": "tiktok", "handle": handle}  # a crawl of it costs 1 credit


async def _key(client: httpx.AsyncClient, key: str, **body: object) -> dict:
    r = await client.post("/api/v1/keys", json=body, headers=auth(key))
    assert r.status_code == 201, r.text
    return r.json()


async def test_keys_over_the_api(client: httpx.AsyncClient, db: Database) -> None:
    _, key = await create_account(db, credits=10)
    listed = (await client.get("/api/v1/keys", headers=auth(key))).json()["results"]
    assert [k["current"] for k in listed] == [True] and listed[0]["dailyCreditCap"] is None

    made = await _key(client, key, name="agent", dailyCreditCap=50)
    assert made["apiKey"].startswith(made["prefix"]) and made["dailyCreditCap"] == 50
    assert made["current"] is False and made["spentToday"] == 0
    listed = (await client.get("/api/v1/keys", headers=auth(key))).json()["results"]
    assert len(listed) == 2 and all("apiKey" not in k for k in listed)
    assert (await client.get("/api/v1/credits", headers=auth(made["apiKey"]))).status_code == 200

    # A capped key cannot mint an uncapped one, or lift its own cap.
    for method, path, body in [("POST", "/api/v1/keys", {}),
                               ("PATCH", f"/api/v1/keys/{made['keyId']}", {"dailyCreditCap": None}),
                               ("DELETE", f"/api/v1/keys/{listed[0]['keyId']}", None)]:
        r = await client.request(method, path, json=body, headers=auth(made["apiKey"]))
        assert r.status_code == 403 and r.json()["code"] == "capped_key_cannot_manage_keys"

    patched = await client.patch(f"/api/v1/keys/{made['keyId']}", json={"dailyCreditCap": 7},
                                 headers=auth(key))
    assert patched.json()["dailyCreditCap"] == 7 and patched.json()["name"] == "agent"
    assert (await client.post("/api/v1/keys", json={"dailyCreditCap": -1},
                              headers=auth(key))).status_code == 422

    _, stranger = await create_account(db, email="other@example.com")
    r = await client.delete(f"/api/v1/keys/{made['keyId']}", headers=auth(stranger))
    assert r.status_code == 404

    gone = await client.delete(f"/api/v1/keys/{made['keyId']}", headers=auth(key))
    assert gone.json() == {"keyId": made["keyId"], "status": "revoked"}
    assert (await client.get("/api/v1/credits", headers=auth(made["apiKey"]))).status_code == 401
    own = listed[0]["keyId"]
    last = await client.delete(f"/api/v1/keys/{own}", headers=auth(key))
    assert last.status_code == 409 and last.json()["code"] == "last_key"


async def test_cap_refuses_charges_nothing_and_resets_at_utc_midnight(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, key = await create_account(db, credits=100)
    capped = (await _key(client, key, dailyCreditCap=3))["apiKey"]
    body = await _tracked(db, "cap.day")

    async def at(moment: datetime) -> None:
        await set_time(db, moment)  # the test runtime's clock reads it at the next request

    async def crawl(k: str) -> httpx.Response:
        return await client.post("/api/v1/crawls", json=body, headers=auth(k))

    await crawl(key)  # installs the simulated clock in this process
    await at(datetime(2026, 11, 20, 23, 58, tzinfo=UTC))
    assert [(await crawl(capped)).status_code for _ in range(3)] == [200, 200, 200]
    quote = await client.post("/api/v1/crawls", json=body,
                              headers={**auth(capped), "X-Dry-Run": "true"})
    assert (quote.json()["credits"], quote.json()["keyCapRemaining"]) == (1, 0)
    refused = await crawl(capped)
    assert refused.status_code == 402
    problem = refused.json()
    assert problem["code"] == "spend_cap_reached"
    assert (problem["cap"], problem["spentToday"], problem["required"]) == (3, 3, 1)
    assert problem["balance"] == 96
    assert refused.headers["x-credits-charged"] == "0"
    assert refused.headers["x-credits-balance"] == "96"
    assert (await crawl(key)).status_code == 200  # the account's other key is not capped
    assert await balance_and_ledger_sum(db, account_id) == (95, 95)

    await at(datetime(2026, 11, 20, 23, 59, 59, tzinfo=UTC))
    assert (await crawl(capped)).status_code == 402
    await at(datetime(2026, 11, 21, 0, 0, 1, tzinfo=UTC))
    assert (await crawl(capped)).status_code == 200
    listed = (await client.get("/api/v1/keys", headers=auth(key))).json()["results"]
    assert [k["spentToday"] for k in listed if k["dailyCreditCap"] == 3] == [1]


@pytest.fixture(scope="module")
def busy_server(settings: Settings) -> Iterator[str]:
    """The app under uvicorn in its own thread, with a rate limit that lets 200 calls
    through, so only the cap and the balance decide."""
    from sors.app import create_app

    port = free_port()
    app = create_app(settings.with_values(**{"rate_limit_per_minute": 100_000}))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on", loop="asyncio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)


async def test_200_parallel_calls_on_a_key_capped_at_50(busy_server: str, db: Database,
                                                        clean) -> None:
    account_id, key = await create_account(db, credits=1000)
    body = await _tracked(db, "cap.burst")
    async with httpx.AsyncClient(base_url=busy_server, timeout=60,
                                 limits=httpx.Limits(max_connections=200)) as c:
        capped = (await c.post("/api/v1/keys", json={"dailyCreditCap": 50},
                               headers=auth(key))).json()
        other = (await c.post("/api/v1/keys", json={"dailyCreditCap": 500},
                              headers=auth(key))).json()
        calls = [c.post("/api/v1/crawls", json=body, headers=auth(capped["apiKey"]))
                 for _ in range(200)]
        calls += [c.post("/api/v1/crawls", json=body, headers=auth(other["apiKey"]))
                  for _ in range(20)]
        rs = await asyncio.gather(*calls)
    capped_codes = [r.status_code for r in rs[:200]]
    assert capped_codes.count(200) == 50 and capped_codes.count(402) == 150, capped_codes
    assert all(r.json()["code"] == "spend_cap_reached" for r in rs[:200] if r.status_code == 402)
    assert [r.status_code for r in rs[200:]] == [200] * 20  # other keys unaffected
    assert await balance_and_ledger_sum(db, account_id) == (930, 930)
    async with db.session() as s:
        spent = dict((await s.execute(text("SELECT key_id, spent FROM api_key_spend"))).all())
    assert spent == {capped["keyId"]: 50, other["keyId"]: 20}


def test_cli_creates_a_capped_key(settings: Settings, pg_url: str, db: Database) -> None:
    env = {**os.environ, "SORS_DATABASE_URL": pg_url, "SORS_DATA_DIR": str(settings.data_dir),
           "SORS_PLATFORM_SOURCE": "sim"}
    run = [sys.executable, "-m", "sors.cli.main"]
    made = subprocess.run([*run, "accounts", "create", "--email", "cli@example.com", "--json"],
                          env=env, capture_output=True, text=True, check=True)
    account_id = __import__("json").loads(made.stdout)["accountId"]
    key = subprocess.run([*run, "keys", "create", account_id, "--daily-cap", "25"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert key.startswith("sors_")
    listed = subprocess.run([*run, "keys", "list", account_id], env=env, capture_output=True,
                            text=True, check=True).stdout
    header, first, capped = listed.splitlines()[1:4]  # under the account's line
    assert header.split()[:2] == ["key", "prefix"] and "daily cap" in header
    assert "no cap" in first and "25/day" in capped
