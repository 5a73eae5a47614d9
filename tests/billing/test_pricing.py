from __future__ import annotations

import httpx

from sors.billing.pricing import get_pricing
from tests.factories import auth, create_account

CONTRACT_SKILLS = {
    "search_outliers", "search_profiles", "get_post", "get_profile", "resolve_post_url",
    "request_transcript", "crawl_profile", "get_job_status", "get_credit_balance",
    "compare_profiles", "niche_trends", "download_post_media", "remix_post", "get_remix_result",
    "create_topup_link", "report_issue", "get_trending_outliers", "get_pricing", "track_profile",
    "untrack_profile", "list_tracked_profiles", "get_tracked_updates", "create_viral_alert",
    "list_viral_alerts", "delete_viral_alert", "list_categories", "get_credit_ledger",
}
SEED_COSTS = {
    "search_outliers": 1, "search_profiles": 1, "get_post": 1, "get_profile": 1,
    "resolve_post_url": 1, "compare_profiles": 2, "niche_trends": 2, "download_post_media": 3,
    "request_transcript": 10, "remix_post": 20, "crawl_profile": 40,
}
# Paid skills added by later issues, at the cost their issue set.
ISSUE_COSTS = {"get_post_history": 1, "find_breakouts": 2, "analyze_post": 15, "search_hooks": 1,
               "find_rising_posts": 2, "fetch_comments": 5, "search_demand": 2,
               "find_trending_sounds": 1, "get_sound": 1, "find_trending_hashtags": 1}
# Skills charged per quantity, and what one charge of their credits buys.
PER = {"fetch_comments": "100 comments"}


async def test_pricing_needs_no_key_and_lists_every_skill(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/pricing")
    assert r.status_code == 200
    body = r.json()
    assert body["usdPerCredit"] == 0.01
    keys = {s["key"] for s in body["skills"]}
    assert CONTRACT_SKILLS <= keys
    # Skills beyond the contract's list (e.g. webhooks) must each be a real route.
    doc = (await client.get("/api/v1/openapi.json")).json()
    served = {op.get("x-sors-skill") for ops in doc["paths"].values() for op in ops.values()}
    assert keys - CONTRACT_SKILLS <= served, keys - CONTRACT_SKILLS - served
    for s in body["skills"]:
        assert set(s) == {"key", "title", "method", "path", "credits", "per", "includes",
                          "variants"}
        assert s["per"] == PER.get(s["key"]), s["key"]
        assert s["path"].startswith("/api/v1/")
        if s["key"] in SEED_COSTS or s["key"] in ISSUE_COSTS:
            assert s["credits"] == {**SEED_COSTS, **ISSUE_COSTS}[s["key"]], s["key"]
        else:
            assert s["credits"] == 0, s["key"]
    assert [p["packId"] for p in body["packs"]] == ["pack_s", "pack_m", "pack_l"]
    assert body["packs"][0]["priceUsd"] == 15
    assert body["monthlyPlanCredits"] == {
        p["planId"]: p["monthlyApiCredits"] for p in body["plans"]}
    assert body["keylessCheckout"].endswith("/checkout/keyless")
    assert {x["key"]: x["credits"] for x in body["recurringCharges"]} == {
        "tracking_refresh": 10, "alert_email": 5
    }
    assert r.headers["x-request-id"].startswith("req_")
    assert r.headers["ratelimit-policy"] == '"default";q=30;w=60'


async def test_both_auth_headers_and_401s(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db, credits=7)
    r1 = await client.get("/api/v1/credits", headers=auth(key))
    r2 = await client.get("/api/v1/credits", headers={"x-api-key": key})
    assert r1.status_code == r2.status_code == 200
    assert r1.json() == {"balance": 7, "balanceUsd": 0.07, "usdPerCredit": 0.01}
    assert r1.headers["x-credits-charged"] == "0"
    assert r1.headers["x-credits-balance"] == "7"

    for headers in ({}, {"x-api-key": "sors_nope_nope_nope_nope_nope"},
                    {"Authorization": "Bearer x"}):
        r = await client.get("/api/v1/credits", headers=headers)
        assert r.status_code == 401
        assert r.headers["content-type"] == "application/problem+json"
        body = r.json()
        assert body["code"] == "unauthorized" and body["status"] == 401
        assert body["type"] == "/errors/unauthorized"
        assert body["requestId"] == r.headers["x-request-id"]


async def test_request_id_is_echoed_when_sane(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/pricing", headers={"X-Request-Id": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    r = await client.get("/api/v1/pricing", headers={"X-Request-Id": "bad id\twith spaces"})
    assert r.headers["x-request-id"].startswith("req_")


async def test_unknown_route_is_problem_404(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/nope")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_pricing_costs_are_integers() -> None:
    p = get_pricing()
    assert all(isinstance(s.credits, int) for s in p.skills.values())
    assert p.cost("crawl_profile", "already_tracked_credits") == 1
