"""A paid read's charge rides along the read's own first statement (billing.RideAlong):
one statement fewer for the cheapest paid calls, the same money rules. Through HTTP, with
parallel requests on a real server: the charge, a 404 that is not charged, the credits.low
event written once in the charge's transaction, and refusals (balance, key cap) that commit
nothing — and the ordinary charge statement never runs for these reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import text

from sors.billing import repository as billing_repo
from sors.catalog.ingest.service import ingest_crawls
from sors.kit.db import Database
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.webhooks.conftest import loopback_allowed
from tests.webhooks.helpers import create_endpoint

__all__ = ["loopback_allowed"]  # a fixture this module uses

AT = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def ordinary_charges(monkeypatch) -> list[int]:
    """Counts the charges that took the ordinary path (a statement of their own)."""
    calls: list[int] = []
    original = billing_repo.charge

    async def counted(*args, **kwargs):
        calls.append(1)
        return await original(*args, **kwargs)

    monkeypatch.setattr(billing_repo, "charge", counted)
    return calls


async def _post_id(db: Database, handle: str) -> str:
    async with db.transaction() as s:
        await ingest_crawls(s, [SimWorld(0).crawl("tiktok", handle, AT)])
        return (await s.execute(text(
            "SELECT p.id FROM posts p JOIN profiles f ON f.id = p.profile_id"
            " WHERE f.handle = :h LIMIT 1"), {"h": handle})).scalar_one()


async def _scalar(db: Database, sql: str, **params: object) -> object:
    async with db.session() as s:
        return (await s.execute(text(sql), params)).scalar_one()


async def test_the_charge_rides_along_the_read(client: httpx.AsyncClient, db: Database,
                                               ordinary_charges: list[int]) -> None:
    post_id = await _post_id(db, "ride.once")
    account_id, key = await create_account(db, credits=10)
    for expected in (9, 8):
        r = await client.get(f"/api/v1/posts/{post_id}", headers=auth(key))
        assert r.status_code == 200 and r.json()["id"] == post_id
        assert (r.headers["x-credits-charged"], r.headers["x-credits-balance"]) == (
            "1", str(expected))
    r = await client.get(f"/api/v1/posts/{post_id}/history", headers=auth(key))
    assert r.status_code == 200 and r.headers["x-credits-balance"] == "7"
    assert ordinary_charges == []
    assert await balance_and_ledger_sum(db, account_id) == (7, 7)
    entry = await _scalar(db, "SELECT skill || ' ' || reason || ' ' || delta FROM ledger_entries"
                              " WHERE account_id = :a ORDER BY id DESC LIMIT 1", a=account_id)
    assert entry == "get_post_history get_post_history -1"
    # A post that does not exist: 404; the charge that rode along was rolled back with it.
    r = await client.get("/api/v1/posts/pst_missing", headers=auth(key))
    assert r.status_code == 404 and r.headers["x-credits-charged"] == "0"
    assert await balance_and_ledger_sum(db, account_id) == (7, 7)


async def test_a_search_charge_rides_along_its_count_when_it_needs_one(
    client: httpx.AsyncClient, db: Database, ordinary_charges: list[int]
) -> None:
    for handle in ("ride.search", "ride.search2"):  # two profiles with dozens of posts
        await _post_id(db, handle)
    account_id, key = await create_account(db, credits=10)
    query = {"query": None, "pageSize": 1}
    # Page 1 of many: the total needs a count, which carries the charge.
    r = await client.post("/api/v1/search/content", json=query, headers=auth(key))
    assert r.status_code == 200 and r.json()["total"] > 1, r.text
    assert r.headers["x-credits-charged"] == "1" and ordinary_charges == []
    r = await client.post("/api/v1/search/profiles", json={"pageSize": 1}, headers=auth(key))
    assert r.status_code == 200 and r.headers["x-credits-balance"] == "8"
    # One page holds everything: no count runs, and the charge is a statement of its own.
    r = await client.post("/api/v1/search/profiles", json={}, headers=auth(key))
    assert r.status_code == 200 and r.headers["x-credits-balance"] == "7"
    assert ordinary_charges == [1]
    assert await balance_and_ledger_sum(db, account_id) == (7, 7)


async def test_crossing_credits_low_writes_its_event_once(
    client: httpx.AsyncClient, live_server: str, db: Database, loopback_allowed,
    ordinary_charges: list[int],
) -> None:
    post_id = await _post_id(db, "ride.low")
    account_id, key = await create_account(db, credits=105)
    await create_endpoint(client, key, "http://127.0.0.1:9/hook", events=["credits.low"])
    h = auth(key)
    assert (await client.put("/api/v1/webhooks/settings", json={"creditsLowThreshold": 100},
                             headers=h)).status_code == 200
    async with httpx.AsyncClient(base_url=live_server, timeout=60) as c:
        rs = await asyncio.gather(
            *[c.get(f"/api/v1/posts/{post_id}", headers=h) for _ in range(12)])
    assert [r.status_code for r in rs] == [200] * 12
    assert await balance_and_ledger_sum(db, account_id) == (93, 93)
    assert await _scalar(db, "SELECT count(*) FROM webhook_events WHERE account_id = :a"
                             " AND type = 'credits.low'", a=account_id) == 1
    data = await _scalar(db, "SELECT data FROM webhook_events WHERE account_id = :a", a=account_id)
    assert (data["balance"], data["threshold"], data["entry"]["credits"]) == (99, 100, -1)
    assert ordinary_charges == []


async def test_refusals_commit_nothing_under_parallel_reads(
    client: httpx.AsyncClient, live_server: str, db: Database, ordinary_charges: list[int],
) -> None:
    post_id = await _post_id(db, "ride.cap")
    account_id, key = await create_account(db, credits=30)
    r = await client.post("/api/v1/keys", json={"dailyCreditCap": 5}, headers=auth(key))
    capped = r.json()["apiKey"]
    async with httpx.AsyncClient(base_url=live_server, timeout=60) as c:
        # First the capped key (the cap decides), then the other key (the balance decides).
        rs = await asyncio.gather(
            *[c.get(f"/api/v1/posts/{post_id}", headers=auth(capped)) for _ in range(20)])
        rs += await asyncio.gather(
            *[c.get(f"/api/v1/posts/{post_id}", headers=auth(key)) for _ in range(40)])
    capped_codes = [r.status_code for r in rs[:20]]
    assert capped_codes.count(200) == 5, capped_codes
    problems = [r.json() for r in rs[:20] if r.status_code == 402]
    assert {p["code"] for p in problems} == {"spend_cap_reached"}
    assert all((p["cap"], p["spentToday"], p["required"]) == (5, 5, 1) for p in problems)
    codes = [r.status_code for r in rs[20:]]
    assert codes.count(200) == 25 and codes.count(402) == 15, codes
    assert {r.json()["code"] for r in rs[20:] if r.status_code == 402} == {"insufficient_credits"}
    assert all(r.headers["x-credits-charged"] == "0" for r in rs if r.status_code == 402)
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)
    # A refused charge's cap bump never committed: the capped key spent exactly its cap.
    assert await _scalar(db, "SELECT COALESCE(sum(spent), 0) FROM api_key_spend s"
                             " JOIN api_keys k ON k.id = s.key_id WHERE k.account_id = :a"
                             " AND k.daily_credit_cap = 5", a=account_id) == 5
    assert ordinary_charges == []
