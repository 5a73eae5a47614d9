"""Unknown fields, JSON without its Content-Type, 405 with Allow."""

from __future__ import annotations

import httpx
import orjson

from tests.factories import auth, balance_and_ledger_sum, create_account


async def test_unknown_body_field_is_422_with_suggestion_and_free(
    client: httpx.AsyncClient, db
) -> None:
    account, key = await create_account(db, credits=50)
    r = await client.post(
        "/api/v1/search/content", json={"min_outlier_score": 500, "page_size": 1}, headers=auth(key)
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "unknown_field"
    assert r.headers["content-type"] == "application/problem+json"
    fields = {e["field"]: e["message"] for e in body["errors"]}
    assert "min_outlier_score" in fields and "'minOutlierScore'" in fields["min_outlier_score"]
    assert r.headers["x-credits-charged"] == "0"
    assert await balance_and_ledger_sum(db, account) == (50, 50)


async def test_unknown_nested_field_names_its_path(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db, credits=50)
    r = await client.post(
        "/api/v1/profiles/compare",
        json={"handles": [{"platform": "tiktok", "handel": "anna"},
                          {"platform": "tiktok", "handle": "bob"}]},
        headers=auth(key),
    )
    assert r.status_code == 422
    assert r.json()["code"] == "unknown_field"
    assert r.json()["errors"][0]["field"] == "handles.0.handel"
    assert "'handle'" in r.json()["errors"][0]["message"]


async def test_unknown_query_parameter_is_422_with_suggestion(
    client: httpx.AsyncClient, db
) -> None:
    account, key = await create_account(db, credits=5)
    r = await client.get("/api/v1/credits/ledger?limt=5", headers=auth(key))
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "unknown_field"
    assert body["errors"] == [
        {"field": "limt", "message": "unknown field 'limt'; did you mean 'limit'?"}]
    r = await client.post("/api/v1/search/content?page_size=1", json={}, headers=auth(key))
    assert r.status_code == 422 and r.json()["code"] == "unknown_field"
    assert r.headers["x-credits-charged"] == "0"
    assert await balance_and_ledger_sum(db, account) == (5, 5)


async def test_json_sent_as_form_is_read_as_json(client: httpx.AsyncClient, db) -> None:
    # curl -d '{"query": "x"}' sends application/x-www-form-urlencoded.
    _, key = await create_account(db, credits=5)
    r = await client.post(
        "/api/v1/search/content",
        content=orjson.dumps({"pageSize": 1}),
        headers={**auth(key), "content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["pageSize"] == 1


async def test_non_json_body_names_the_header(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db, credits=5)
    r = await client.post(
        "/api/v1/search/content",
        content=b"query=yoga",
        headers={**auth(key), "content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 400
    assert r.json()["code"] == "malformed_request"
    assert "Content-Type: application/json" in r.json()["detail"]


async def test_wrong_method_is_405_with_allow(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    r = await client.put("/api/v1/tracking", headers=auth(key))
    assert r.status_code == 405
    assert r.json()["code"] == "method_not_allowed"
    assert r.headers["allow"] == "DELETE, GET, POST"
    r = await client.delete("/api/v1/credits", headers=auth(key))
    assert r.status_code == 405 and r.headers["allow"] == "GET"
    # /posts/media also matches the template /posts/{postId}; its resource serves POST only.
    r = await client.options("/api/v1/posts/media", headers=auth(key))
    assert r.status_code == 405 and r.headers["allow"] == "POST"


async def test_nul_characters_are_dropped_not_a_500(client: httpx.AsyncClient, db) -> None:
    # Found by Schemathesis: PostgreSQL refuses NUL in text; a search for one was a 500.
    _, key = await create_account(db, credits=5)
    r = await client.post("/api/v1/search/profiles", json={"query": "\u0000\r\u00e6"},
                          headers=auth(key))
    assert r.status_code == 200, r.text
