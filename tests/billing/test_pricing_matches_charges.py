"""Every skill of the price list charges exactly its listed cost on success, through its
real endpoint, and free skills charge 0 — the listing and the charging share one object."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from sors.billing.pricing import get_pricing
from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, create_account

AT = datetime(2026, 11, 1, tzinfo=UTC)


async def test_every_skill_charges_its_listed_cost(client: httpx.AsyncClient, db) -> None:
    world = SimWorld(0)
    snaps = [world.crawl("tiktok", "price.check", AT), world.crawl("youtube", "pricecheck", AT)]
    async with db.transaction() as s:
        pids = await ingest_crawls(s, snaps)
    post = snaps[0].posts[0]
    async with db.session() as s:
        from sqlalchemy import text

        post_id = (await s.execute(text("SELECT id FROM posts WHERE platform_post_id=:p"),
                                   {"p": post.platform_post_id})).scalar_one()
    _, key = await create_account(db, credits=10_000)
    h = auth(key)
    calls = {
        "search_outliers": ("POST", "/api/v1/search/content", {}),
        "search_profiles": ("POST", "/api/v1/search/profiles", {"query": "price"}),
        "get_post": ("GET", f"/api/v1/posts/{post_id}", None),
        "get_post_history": ("GET", f"/api/v1/posts/{post_id}/history", None),
        "get_profile": ("GET", f"/api/v1/profiles/{pids[0]}", None),
        "resolve_post_url": ("POST", "/api/v1/posts/resolve", {"url": post.url}),
        "compare_profiles": ("POST", "/api/v1/profiles/compare", {"profileIds": pids}),
        "niche_trends": ("POST", "/api/v1/trends", {}),
        "find_breakouts": ("POST", "/api/v1/trends/breakouts", {}),
        "download_post_media": ("POST", "/api/v1/posts/media", {"postId": post_id}),
        "request_transcript": ("POST", "/api/v1/transcriptions", {"postId": post_id}),
        "remix_post": ("POST", "/api/v1/remixes",
                       {"postId": post_id, "targetNiche": "home baking"}),
        "crawl_profile": ("POST", "/api/v1/crawls",
                          {"platform": "instagram", "handle": "new.face"}),
        "get_credit_balance": ("GET", "/api/v1/credits", None),
        "get_credit_ledger": ("GET", "/api/v1/credits/ledger", None),
        "list_categories": ("GET", "/api/v1/categories", None),
        "report_issue": ("POST", "/api/v1/feedback", {"message": "checking the price list"}),
        "list_tracked_profiles": ("GET", "/api/v1/tracking", None),
        "get_tracked_updates": ("GET", "/api/v1/tracking/updates", None),
        "list_viral_alerts": ("GET", "/api/v1/alerts", None),
        "track_profile": ("POST", "/api/v1/tracking", {"profileId": pids[1]}),
        "create_topup_link": ("POST", "/api/v1/credits/topup", {"packId": "pack_s"}),
    }
    pricing = get_pricing()
    skills = (await client.get("/api/v1/pricing")).json()["skills"]
    listed = {s["key"]: s["credits"] for s in skills}
    balance = 10_000
    for skill, (method, path, body) in calls.items():
        r = await client.request(method, path, json=body, headers=h)
        assert r.status_code == 200, (skill, r.text)
        assert int(r.headers["x-credits-charged"]) == listed[skill] == pricing.cost(skill), skill
        balance -= listed[skill]
        assert int(r.headers["x-credits-balance"]) == balance, skill
    # The skills whose success needs an earlier result: a job's status and a remix result.
    job_ref = (await client.request(
        "POST", "/api/v1/remixes", json={"postId": post_id, "targetNiche": "home baking"},
        headers=h)).json()["jobRef"]
    for skill, path in (("get_job_status", f"/api/v1/jobs/{job_ref}"),
                        ("get_remix_result", f"/api/v1/remixes/{job_ref}")):
        r = await client.get(path, headers=h)
        assert r.status_code == 200, skill
        assert r.headers["x-credits-charged"] == "0" == str(listed[skill]), skill
