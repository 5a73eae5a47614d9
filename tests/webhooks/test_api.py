"""The endpoints API: create (secret shown once), list, get, patch, delete, rotate, the
10-per-account limit, settings, and that every route is free and listed in the price list."""

from __future__ import annotations

import httpx
import pytest

from sors.billing.pricing import get_pricing
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.webhooks.helpers import count, create_endpoint

pytestmark = pytest.mark.usefixtures("loopback_allowed")
URL = "http://127.0.0.1:9/hook"
WEBHOOK_SKILLS = {
    "create_webhook", "list_webhooks", "get_webhook", "update_webhook", "delete_webhook",
    "rotate_webhook_secret", "test_webhook", "list_webhook_deliveries",
    "retry_webhook_delivery", "get_webhook_settings", "update_webhook_settings",
}


async def test_crud_secret_once_and_free(client: httpx.AsyncClient, db) -> None:
    account_id, key = await create_account(db, credits=5)
    h = auth(key)
    r = await client.post("/api/v1/webhooks", headers=h, json={
        "url": URL, "description": "ci", "events": ["job.completed", "job.completed"]})
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "0" and r.headers["x-credits-balance"] == "5"
    created = r.json()
    assert created["id"].startswith("whk_") and created["secret"].startswith("whsec_")
    assert created["events"] == ["job.completed"] and created["enabled"] is True
    wid = created["id"]

    got = (await client.get(f"/api/v1/webhooks/{wid}", headers=h)).json()
    assert "secret" not in got and got["url"] == URL and got["description"] == "ci"
    listed = (await client.get("/api/v1/webhooks", headers=h)).json()["results"]
    assert [w["id"] for w in listed] == [wid] and "secret" not in listed[0]

    r = await client.patch(f"/api/v1/webhooks/{wid}", headers=h, json={
        "events": ["credits.low", "alert.triggered"], "enabled": False})
    assert r.status_code == 200 and r.json()["events"] == ["credits.low", "alert.triggered"]
    assert r.json()["enabled"] is False and "secret" not in r.json()

    r = await client.post(f"/api/v1/webhooks/{wid}/rotate-secret", headers=h)
    assert r.status_code == 200 and r.json()["secret"].startswith("whsec_")
    assert r.json()["secret"] != created["secret"] and r.json()["previousSecretExpiresAt"]
    got = (await client.get(f"/api/v1/webhooks/{wid}", headers=h)).json()
    assert got["previousSecretExpiresAt"]

    r = await client.delete(f"/api/v1/webhooks/{wid}", headers=h)
    assert r.json() == {"id": wid, "status": "deleted"}
    assert (await client.get(f"/api/v1/webhooks/{wid}", headers=h)).status_code == 404
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)  # nothing was ever charged


async def test_other_accounts_endpoints_are_404(client: httpx.AsyncClient, db) -> None:
    _, key1 = await create_account(db)
    _, key2 = await create_account(db)
    wid = (await create_endpoint(client, key1, URL))["id"]
    for method, path in (("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/rotate-secret"),
                         ("POST", "/test"), ("GET", "/deliveries")):
        r = await client.request(method, f"/api/v1/webhooks/{wid}{path}",
                                 json={} if method == "PATCH" else None, headers=auth(key2))
        assert r.status_code == 404 and r.json()["code"] == "not_found", (method, path)
    assert (await client.get("/api/v1/webhooks", headers=auth(key2))).json() == {"results": []}
    assert (await client.get("/api/v1/webhooks")).status_code == 401


async def test_ten_per_account(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    for i in range(10):
        await create_endpoint(client, key, f"{URL}{i}")
    r = await client.post("/api/v1/webhooks", json={"url": URL}, headers=auth(key))
    assert r.status_code == 409 and r.json()["code"] == "webhook_limit_reached"
    assert await count(db, "SELECT count(*) FROM webhook_endpoints") == 10


@pytest.mark.parametrize("body,field", [
    ({"url": URL, "events": ["job.done"]}, "events"),
    ({"url": URL, "events": []}, "events"),
    ({"url": URL, "description": "x" * 501}, "description"),
    ({"url": 5}, "url"),
    ({}, "url"),
])
async def test_bad_bodies_are_422_and_change_nothing(
    client: httpx.AsyncClient, db, body, field
) -> None:
    _, key = await create_account(db)
    r = await client.post("/api/v1/webhooks", json=body, headers=auth(key))
    assert r.status_code == 422, r.text
    assert field in r.text
    assert await count(db, "SELECT count(*) FROM webhook_endpoints") == 0


async def test_settings_threshold(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    h = auth(key)
    got = await client.get("/api/v1/webhooks/settings", headers=h)
    assert got.json() == {"creditsLowThreshold": 100}
    r = await client.put("/api/v1/webhooks/settings", json={"creditsLowThreshold": 250}, headers=h)
    assert r.status_code == 200 and r.json() == {"creditsLowThreshold": 250}
    got = await client.get("/api/v1/webhooks/settings", headers=h)
    assert got.json() == {"creditsLowThreshold": 250}
    r = await client.put("/api/v1/webhooks/settings", json={"creditsLowThreshold": -1}, headers=h)
    assert r.status_code == 422


async def test_every_route_is_free_and_listed(client: httpx.AsyncClient, db) -> None:
    listed = {s["key"]: s for s in (await client.get("/api/v1/pricing")).json()["skills"]}
    assert WEBHOOK_SKILLS <= set(listed)
    assert all(listed[k]["credits"] == 0 == get_pricing().cost(k) for k in WEBHOOK_SKILLS)
    doc = (await client.get("/api/v1/openapi.json")).json()
    routes = {
        (method.upper(), path): op.get("x-sors-skill")
        for path, ops in doc["paths"].items() if path.startswith("/api/v1/webhooks")
        for method, op in ops.items()
    }
    assert sorted(routes.values()) == sorted(WEBHOOK_SKILLS)
    for key in WEBHOOK_SKILLS:
        assert routes[(listed[key]["method"], listed[key]["path"])] == key
