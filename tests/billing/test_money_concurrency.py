"""Money under real concurrency: 50 parallel HTTP requests against a real server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, balance_and_ledger_sum, create_account


async def _tracked(db, handle: str) -> None:
    snap = SimWorld(0).crawl("tiktok", handle, datetime(2026, 11, 1, tzinfo=UTC))
    async with db.transaction() as s:
        await ingest_crawls(s, [snap])


async def test_50_parallel_one_credit_calls_with_20_credits(live_server: str, db, clean) -> None:
    await _tracked(db, "parallel.anna")
    account_id, key = await create_account(db, credits=20)
    body = {"platform": "tiktok", "handle": "parallel.anna"}  # tracked: 1 credit each
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=live_server, limits=limits, timeout=30) as c:
        rs = await asyncio.gather(
            *[c.post("/api/v1/crawls", json=body, headers=auth(key)) for _ in range(50)])
    codes = sorted(r.status_code for r in rs)
    assert codes.count(200) == 20 and codes.count(402) == 30, codes
    for r in rs:
        if r.status_code == 402:
            assert r.json()["code"] == "insufficient_credits"
            assert r.headers["x-credits-charged"] == "0"
        else:
            assert r.headers["x-credits-charged"] == "1"
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)


async def test_mixed_cost_burst_never_overdraws(live_server: str, db, clean) -> None:
    await _tracked(db, "mixed.burst")
    account_id, key = await create_account(db, credits=130)
    cheap = {"platform": "tiktok", "handle": "mixed.burst"}  # 1 credit
    reqs = [("cheap", cheap)] * 35 + [
        ("dear", {"platform": "youtube", "handle": f"burst{i:03d}"}) for i in range(15)]
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=live_server, limits=limits, timeout=30) as c:
        rs = await asyncio.gather(
            *[c.post("/api/v1/crawls", json=b, headers=auth(key)) for _, b in reqs])
    charged = 0
    for (kind, _), r in zip(reqs, rs, strict=True):
        assert r.status_code in (200, 402), r.text
        got = int(r.headers["x-credits-charged"])
        assert got == ({"cheap": 1, "dear": 40}[kind] if r.status_code == 200 else 0)
        charged += got
    balance, ledger = await balance_and_ledger_sum(db, account_id)
    assert balance == ledger == 130 - charged >= 0
    async with db.session() as s:
        jobs = (await s.execute(
            text("SELECT count(*) FROM jobs WHERE account_id=:a"), {"a": account_id})).scalar()
        charges = (await s.execute(text(
            "SELECT count(*) FROM ledger_entries WHERE account_id=:a AND kind='charge' "
            "AND delta=-40"), {"a": account_id})).scalar()
    assert jobs == charges  # every queued job was paid for, every 402 queued nothing
