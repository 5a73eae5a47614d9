"""Request handling: body limits, malformed JSON, validation, rate limits, idempotency."""

from __future__ import annotations

import asyncio

import httpx
import orjson

from sors.app import create_app
from tests.factories import auth, balance_and_ledger_sum, create_account


async def test_body_over_64_kib_is_413_and_changes_nothing(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    big = orjson.dumps({"message": "x" * (65 * 1024)})
    r = await client.post("/api/v1/feedback", content=big,
                          headers={**auth(key), "content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["code"] == "payload_too_large"
    async with db.session() as s:
        from sqlalchemy import text

        assert (await s.execute(text("SELECT count(*) FROM feedback"))).scalar() == 0


async def test_malformed_json_is_400(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    h = {**auth(key), "content-type": "application/json"}
    r = await client.post("/api/v1/feedback", content=b"{not json", headers=h)
    assert r.status_code == 400 and r.json()["code"] == "malformed_request"
    r = await client.post("/api/v1/feedback", content=b"[1, 2]", headers=h)
    assert r.status_code == 400 and r.json()["code"] == "malformed_request"


async def test_validation_errors_are_422_with_fields(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    r = await client.post("/api/v1/feedback", json={"message": "  short   "}, headers=auth(key))
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "validation_error"
    assert body["errors"][0]["field"] == "message"
    r = await client.post("/api/v1/feedback", json={"message": 12345678901}, headers=auth(key))
    assert r.status_code == 422  # wrong type is refused, not coerced
    r = await client.post(
        "/api/v1/feedback",
        json={"message": "a perfectly fine message", "skill": "nope"},
        headers=auth(key),
    )
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "skill"


async def test_feedback_is_stored_and_unknown_fields_refused(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    r = await client.post(
        "/api/v1/feedback",
        json={"message": "  search misses accents  ", "skill": "search_outliers",
              "wantsUpdate": True, "extra": 1},
        headers=auth(key),
    )
    assert r.status_code == 422 and r.json()["code"] == "unknown_field"
    r = await client.post(
        "/api/v1/feedback",
        json={"message": "  search misses accents  ", "skill": "search_outliers",
              "wantsUpdate": True},
        headers=auth(key),
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "received" and body["feedbackId"].startswith("fbk_")
    assert r.headers["x-credits-charged"] == "0"


async def test_rate_limit_per_key_gives_429_with_retry_after(settings, db) -> None:
    app = create_app(settings.with_values(**{"rate_limit_per_minute": 3}), db=db)
    _, key = await create_account(db)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.9", 1))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            codes = [(await c.get("/api/v1/credits", headers=auth(key))) for _ in range(4)]
        assert [r.status_code for r in codes] == [200, 200, 200, 429]
        last = codes[-1]
        assert last.json()["code"] == "rate_limited"
        assert int(last.headers["retry-after"]) >= 1
        assert last.json()["retryAfter"] == int(last.headers["retry-after"])
        assert codes[0].headers["ratelimit-policy"] == '"default";q=3;w=60'
        assert codes[1].headers["ratelimit"].startswith('"default";r=1;t=')
    finally:
        from tests.conftest import KEEP_TABLES
        from tests.factories import reset_tables

        await reset_tables(db, KEEP_TABLES)


async def test_idempotency_replays_rejects_and_blocks(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    h = {**auth(key), "Idempotency-Key": "abc-1"}
    body = {"message": "first message body here"}
    r1 = await client.post("/api/v1/feedback", json=body, headers=h)
    r2 = await client.post("/api/v1/feedback", json=body, headers=h)
    assert r1.status_code == r2.status_code == 200
    assert r1.json() == r2.json()
    assert r2.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in r1.headers
    r3 = await client.post("/api/v1/feedback", json={"message": "a different body here"}, headers=h)
    assert r3.status_code == 422 and r3.json()["code"] == "idempotency_key_reused"
    r4 = await client.post("/api/v1/feedback", json=body,
                           headers={**auth(key), "Idempotency-Key": "x" * 256})
    assert r4.status_code == 422
    async with db.session() as s:
        from sqlalchemy import text

        assert (await s.execute(text("SELECT count(*) FROM feedback"))).scalar() == 1


async def test_grant_and_ledger_listing(client: httpx.AsyncClient, db) -> None:
    account_id, key = await create_account(db, credits=25)
    r = await client.get("/api/v1/credits/ledger?limit=10", headers=auth(key))
    assert r.status_code == 200
    entries = r.json()["results"]
    assert len(entries) == 1 and entries[0]["kind"] == "grant" and entries[0]["credits"] == 25
    assert entries[0]["balanceAfter"] == 25
    assert await balance_and_ledger_sum(db, account_id) == (25, 25)


async def test_refund_happens_exactly_once_under_races(db, runtime) -> None:
    from sors.billing import service as billing
    from sors.billing.models import ChargeRequest

    account_id, _ = await create_account(db, credits=50)
    await runtime.clock.refresh()
    now = runtime.now()
    async with db.transaction() as s:
        charge = await billing.charge(
            s, ChargeRequest(account_id, 40, "crawl_profile", now, job_ref="job_x"))

    async def refund() -> int:
        async with db.transaction() as s:
            moved = await billing.refund_charge(s, charge.entry_id, reason="job failed", now=now)
            return moved.amount

    results = await asyncio.gather(*[refund() for _ in range(8)])
    assert sorted(results) == [0] * 7 + [40]
    async with db.transaction() as s:
        again = await billing.refund_job(s, "job_x", reason="again", now=now)
    assert again is not None and again.amount == 0
    assert await balance_and_ledger_sum(db, account_id) == (50, 50)
    from tests.conftest import KEEP_TABLES
    from tests.factories import reset_tables

    await reset_tables(db, KEEP_TABLES)
