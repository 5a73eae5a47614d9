"""Each route's real body against its response model, over HTTP on a real server: every
field the model names is in the body, nothing else is, every value has the declared type.
The test also fails when an /api/v1 operation is added without a case here."""

from __future__ import annotations

from typing import Any

import httpx

from sors.kit.openapi import api_routes
from tests.api.bodies import assert_body_matches
from tests.api.conftest import Served


def _call(c: httpx.Client, app, seen: set[str], method: str, path: str, template: str,
          *, json: Any = None, params: dict[str, Any] | None = None) -> Any:
    r = c.request(method, path, json=json, params=params)
    assert 200 <= r.status_code < 300, (method, path, r.status_code, r.text)
    body = r.json()
    assert_body_matches(app, method, template, body)
    seen.add(f"{method} {template}")
    return body


def test_every_route_answers_its_model(served: Served, app) -> None:
    seen: set[str] = set()
    headers = {"Authorization": f"Bearer {served.key}"}
    with httpx.Client(base_url=served.url + "/api/v1", headers=headers, timeout=60) as c:
        def call(method: str, template: str, path: str | None = None, **kw: Any) -> Any:
            return _call(c, app, seen, method, path or template, "/api/v1" + template, **kw)

        call("GET", "/pricing")
        call("GET", "/credits")
        call("POST", "/credits/topup", json={"packId": "pack_s"})
        call("GET", "/credits/ledger", params={"limit": 1})
        call("POST", "/feedback", json={"message": "The body test says hello", "skill": "get_post"})
        page = call("POST", "/search/content", json={"pageSize": 5, "sortBy": "views"})
        post = page["results"][0]
        call("POST", "/search/profiles", json={"pageSize": 3})
        cats = call("GET", "/categories")
        assert cats and cats[0]["id"]
        full = call("GET", "/posts/{postId}", f"/posts/{post['id']}")
        call("GET", "/posts/{postId}/history", f"/posts/{post['id']}/history")
        call("GET", "/profiles/{profileId}", f"/profiles/{post['profile_id']}")
        found = call("POST", "/posts/resolve", json={"url": full["url"]})
        assert found["found"] is True
        missing = call("POST", "/posts/resolve",
                       json={"url": "https://www.tiktok.com/@nobody.here/video/7301234567890123456"})
        assert missing["found"] is False
        profiles = call("POST", "/search/profiles", json={"pageSize": 2})["results"]
        call("POST", "/profiles/compare",
             json={"profileIds": [p["id"] for p in profiles] + ["prf_unknown"]})
        call("POST", "/trends", json={"limit": 5})
        call("POST", "/trends/breakouts", json={})
        call("POST", "/trends/rising", json={"maxAgeHours": 168})
        call("GET", "/trending")
        call("POST", "/trends/sounds", json={})
        call("POST", "/trends/hashtags", json={})
        tiktok = call("POST", "/search/content",
                      json={"pageSize": 20, "platforms": ["tiktok"]})["results"]
        sound_id = next(p["sound_id"] for p in tiktok if p["sound_id"])
        call("GET", "/sounds/{soundId}", f"/sounds/{sound_id}")
        queued = call("POST", "/crawls", json={"platform": "youtube", "handle": "@bodycheck"})
        assert queued["status"] == "pending"
        call("GET", "/jobs/{jobRef}", f"/jobs/{queued['jobRef']}")
        tracked = profiles[0]
        again = call("POST", "/crawls",
                     json={"platform": tracked["platform"], "handle": tracked["handle"]})
        assert again["alreadyTracked"] is True
        call("POST", "/transcriptions", json={"postId": post["id"]})
        call("POST", "/posts/media", json={"postId": post["id"]})
        remix = call("POST", "/remixes",
                     json={"postId": post["id"], "targetNiche": "budget travel"})
        call("GET", "/remixes/{jobRef}", f"/remixes/{remix['jobRef']}")
        analysis = call("POST", "/analyses", json={"postId": post["id"]})
        call("GET", "/analyses/{jobRef}", f"/analyses/{analysis['jobRef']}")
        call("POST", "/hooks/search", json={"pageSize": 3})
        fetch = call("POST", "/comments", json={"postId": post["id"], "limit": 50})
        call("GET", "/jobs/{jobRef}", f"/jobs/{fetch['jobRef']}")
        call("POST", "/demand/search", json={"limit": 3})
        call("POST", "/tracking", json={"profileId": tracked["id"], "frequency": "daily"})
        call("GET", "/tracking")
        call("GET", "/tracking/updates", params={"limit": 3})
        call("DELETE", "/tracking", params={"profileId": tracked["id"]})
        made = call("POST", "/alerts",
                    json={"profileId": tracked["id"], "email": "user@example.com"})
        call("GET", "/alerts")
        call("DELETE", "/alerts/{alertId}", f"/alerts/{made['alert']['alertId']}")

        call("GET", "/webhooks/settings")
        call("PUT", "/webhooks/settings", json={"creditsLowThreshold": 50})
        hook = call("POST", "/webhooks", json={"url": "http://127.0.0.1:9/hook"})
        wid = hook["id"]
        call("GET", "/webhooks")
        call("GET", "/webhooks/{webhookId}", f"/webhooks/{wid}")
        call("PATCH", "/webhooks/{webhookId}", f"/webhooks/{wid}", json={"description": "x"})
        call("POST", "/webhooks/{webhookId}/rotate-secret", f"/webhooks/{wid}/rotate-secret")
        sent = call("POST", "/webhooks/{webhookId}/test", f"/webhooks/{wid}/test")
        call("GET", "/webhooks/{webhookId}/deliveries", f"/webhooks/{wid}/deliveries")
        call("POST", "/webhooks/{webhookId}/deliveries/{deliveryId}/retry",
             f"/webhooks/{wid}/deliveries/{sent['deliveryId']}/retry")
        call("DELETE", "/webhooks/{webhookId}", f"/webhooks/{wid}")

        board = call("POST", "/boards", json={"name": "Body check"})
        bid = board["id"]
        call("GET", "/boards")
        saved = call("POST", "/boards/{boardId}/items", f"/boards/{bid}/items",
                     json={"postId": post["id"], "note": "a note"})
        call("POST", "/boards/{boardId}/items", f"/boards/{bid}/items",
             json={"profileId": post["profile_id"]})
        shared = call("POST", "/boards/{boardId}/share", f"/boards/{bid}/share")
        call("GET", "/boards/{boardId}", f"/boards/{bid}")
        token = shared["url"].rsplit("/", 1)[1]
        call("GET", "/shared/boards/{token}", f"/shared/boards/{token}")
        call("DELETE", "/boards/{boardId}/share", f"/boards/{bid}/share")
        call("DELETE", "/boards/{boardId}/items/{itemId}",
             f"/boards/{bid}/items/{saved['item']['id']}")
        call("DELETE", "/boards/{boardId}", f"/boards/{bid}")

        sources = call("GET", "/sources")
        assert [p["platform"] for p in sources["platforms"]] == ["tiktok", "instagram", "youtube"]
        call("GET", "/keys")
        key = call("POST", "/keys", json={"name": "body check", "dailyCreditCap": 10})
        call("PATCH", "/keys/{keyId}", f"/keys/{key['keyId']}", json={"dailyCreditCap": None})
        call("DELETE", "/keys/{keyId}", f"/keys/{key['keyId']}")

        call("GET", "/subscriptions")
        link = call("POST", "/subscriptions/checkout", json={"planId": "creator"})
        checkout = "/subscribe/" + link["checkoutUrl"].rsplit("/", 1)[1]  # the local page
        paid = httpx.post(served.url + checkout + "/pay", timeout=60)
        assert paid.status_code == 200, paid.text
        call("POST", "/subscriptions/change", json={"planId": "pro", "interval": "year"})
        call("POST", "/subscriptions/cancel")
        call("POST", "/subscriptions/resume")
        call("POST", "/subscriptions/portal")
        invited = call("POST", "/members", json={"email": "body@example.com", "role": "viewer"})
        call("GET", "/members")
        call("DELETE", "/members/{memberId}", f"/members/{invited['memberId']}")

    everything = {
        f"{m} {p}" for p, methods, r in api_routes(app)
        if p.startswith("/api/v1/") and r.include_in_schema for m in methods
    }
    assert everything - seen == set(), "operations without a body check here"
