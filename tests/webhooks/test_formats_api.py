"""An endpoint's `format` (standard, slack, discord): set on create, changed by PATCH, shown
on every read and in the API document; an unknown format is 422 and changes nothing; a
chat-format URL passes the same address rules as a standard one."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import auth, create_account
from tests.webhooks.helpers import count, create_endpoint

URL = "http://127.0.0.1:9/hook"


@pytest.mark.usefixtures("loopback_allowed")
async def test_format_is_set_on_create_changed_by_patch_and_shown_on_reads(
    client: httpx.AsyncClient, db
) -> None:
    _, key = await create_account(db)
    h = auth(key)
    plain = await create_endpoint(client, key, URL)
    assert plain["format"] == "standard"
    slack = await create_endpoint(client, key, URL, format="slack")
    assert slack["format"] == "slack"
    got = await client.get(f"/api/v1/webhooks/{slack['id']}", headers=h)
    assert got.json()["format"] == "slack"

    r = await client.patch(
        f"/api/v1/webhooks/{slack['id']}", json={"format": "discord"}, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["format"] == "discord"
    r = await client.patch(
        f"/api/v1/webhooks/{slack['id']}", json={"description": "chat"}, headers=h)
    assert r.json()["format"] == "discord"  # a PATCH without `format` keeps it
    listed = (await client.get("/api/v1/webhooks", headers=h)).json()["results"]
    assert {w["id"]: w["format"] for w in listed} == {
        plain["id"]: "standard", slack["id"]: "discord"}


@pytest.mark.usefixtures("loopback_allowed")
async def test_an_unknown_format_is_422_and_changes_nothing(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    h = auth(key)
    r = await client.post("/api/v1/webhooks", json={"url": URL, "format": "teams"}, headers=h)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert any(e["field"].endswith("format") for e in r.json()["errors"]), r.json()
    assert await count(db, "SELECT count(*) FROM webhook_endpoints") == 0

    ep = await create_endpoint(client, key, URL, format="slack", description="before")
    for bad in ("teams", "SLACK", "", 3):
        r = await client.patch(f"/api/v1/webhooks/{ep['id']}",
                               json={"format": bad, "description": "after"}, headers=h)
        assert r.status_code == 422, (bad, r.text)
    got = (await client.get(f"/api/v1/webhooks/{ep['id']}", headers=h)).json()
    assert got["format"] == "slack" and got["description"] == "before"
    assert got["updatedAt"] == ep["updatedAt"]


async def test_chat_formats_follow_the_same_address_rules(client: httpx.AsyncClient, db, settings,
                                                          monkeypatch) -> None:
    _, key = await create_account(db)
    h = auth(key)
    monkeypatch.setattr(settings.webhooks, "allow_http", False)
    monkeypatch.setattr(settings.webhooks, "allow_loopback", False)
    for fmt in ("standard", "slack", "discord"):
        for url in ("https://127.0.0.1/hook", "https://10.0.0.8/hook", "http://hooks.example.com/x",
                    "https://localhost/hook", "https://169.254.169.254/latest"):
            r = await client.post("/api/v1/webhooks", json={"url": url, "format": fmt}, headers=h)
            assert r.status_code == 422 and r.json()["code"] == "unsafe_url", (fmt, url, r.text)
    assert await count(db, "SELECT count(*) FROM webhook_endpoints") == 0

    # With the operator's loopback and http settings, every format is accepted alike.
    monkeypatch.setattr(settings.webhooks, "allow_http", True)
    monkeypatch.setattr(settings.webhooks, "allow_loopback", True)
    ep = await create_endpoint(client, key, URL, format="discord")
    monkeypatch.setattr(settings.webhooks, "allow_loopback", False)
    r = await client.patch(
        f"/api/v1/webhooks/{ep['id']}", json={"url": "http://127.0.0.1:8/x"}, headers=h)
    assert r.status_code == 422 and r.json()["code"] == "unsafe_url"


async def test_the_api_document_lists_the_formats(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/api/v1/openapi.json")).json()
    schemas = doc["components"]["schemas"]

    def enum_of(schema: dict) -> list[str]:
        prop = schema["properties"]["format"]
        options = prop.get("anyOf", [prop])
        return next(o["enum"] for o in options if "enum" in o)

    for name in ("WebhookIn", "WebhookPatch", "WebhookOut", "WebhookCreated"):
        assert enum_of(schemas[name]) == ["standard", "slack", "discord"], name
    assert schemas["WebhookIn"]["properties"]["format"]["default"] == "standard"
    assert "format" in schemas["WebhookOut"]["required"]
