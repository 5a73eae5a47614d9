"""Money under a real burst: 1,000 concurrent requests on one account against a real server.

The account has 600 credits and ten keys (the per-key rate limit is 120 a minute); half the
calls are paid reads (GET /posts/{id}, committed without waiting for the WAL flush), half
paid writes (POST /crawls of a tracked profile). Exactly 600 must succeed, none may
overdraw, nothing may fail with 5xx, and the balance must equal the ledger.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from sqlalchemy import text

from sors.accounts import service as accounts
from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.sim.world import SimWorld
from tests.factories import balance_and_ledger_sum, create_account

CREDITS = 600
REQUESTS = 1000
KEYS = 10


@dataclass
class Reply:
    status_code: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


async def _send(base: str, method: str, path: str, key: str, body: dict | None = None) -> Reply:
    """One request on its own connection: a minimal HTTP/1.1 client on asyncio streams, so
    that 1,000 of them cost this process (which also runs the server) little CPU."""
    url = urlsplit(base)
    payload = json.dumps(body).encode() if body is not None else b""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(head + payload)
        raw = await asyncio.wait_for(reader.read(-1), timeout=300)
    finally:
        writer.close()
    header_block, _, content = raw.partition(b"\r\n\r\n")
    lines = header_block.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return Reply(int(lines[0].split()[1]), headers, content)


async def test_1000_concurrent_calls_on_one_account(live_server: str, db, clean) -> None:
    snap = SimWorld(0).crawl("tiktok", "burst.anna", datetime(2026, 11, 1, tzinfo=UTC))
    async with db.transaction() as s:
        await ingest_crawls(s, [snap])
        post_id = (await s.execute(text("SELECT id FROM posts LIMIT 1"))).scalar_one()
    account_id, first_key = await create_account(db, credits=CREDITS)
    async with db.transaction() as s:
        keys = [first_key] + [await accounts.create_key(s, account_id) for _ in range(KEYS - 1)]

    crawl = {"platform": "tiktok", "handle": "burst.anna"}  # tracked: 1 credit, no job

    def call(i: int):
        key = keys[i % KEYS]
        if i % 2:
            return _send(live_server, "POST", "/api/v1/crawls", key, crawl)
        return _send(live_server, "GET", f"/api/v1/posts/{post_id}", key)

    rs = await asyncio.gather(*[call(i) for i in range(REQUESTS)])

    codes = [r.status_code for r in rs]
    assert set(codes) <= {200, 402}, sorted(set(codes))
    assert codes.count(200) == CREDITS and codes.count(402) == REQUESTS - CREDITS
    for r in rs:
        if r.status_code == 402:
            assert r.json()["code"] == "insufficient_credits"
            assert r.headers["x-credits-charged"] == "0"
        else:
            assert r.headers["x-credits-charged"] == "1"
        assert int(r.headers["x-credits-balance"]) >= 0
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)
    async with db.session() as s:
        charges = (await s.execute(
            text("SELECT count(*), count(DISTINCT request_id) FROM ledger_entries"
                 " WHERE account_id = :a AND kind = 'charge'"), {"a": account_id},
        )).one()
    assert tuple(charges) == (CREDITS, CREDITS)  # one ledger row per paid call, no more
