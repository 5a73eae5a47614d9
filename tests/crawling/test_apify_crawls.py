"""Crawls through the Apify source end to end: POST /crawls → an actor run on a loopback
Apify API replaying real recorded dataset items → searchable, scored posts with the
recorded counts; the run's cost on the job and in provider_runs; failures typed and refunded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from sors.config import Settings
from sors.jobs import service as jobs
from sors.platforms.live import LiveAdapter
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.apify import GOOD_TOKEN, FakeApify
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import rows, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")

# The TikTok export was captured 2026-08-12 (its CDN links' log ids say 20260812024420).
CAPTURED = datetime(2026, 8, 12, 3, 0, tzinfo=UTC)
HANDLE = "kossof.salon.spa"


def live(fake: FakeApify, token: str = GOOD_TOKEN, **extra: Any) -> LiveAdapter:
    settings = Settings(
        platform_source="live", apify_token=token, apify_base_url=fake.url,
        apify_tiktok_actor="clockworks~tiktok-scraper",
        apify_instagram_actor="apify~instagram-scraper",
        apify_youtube_actor="streamers~youtube-scraper", apify_run_timeout_seconds=30,
        tiktok_source=None, instagram_source=None, youtube_source=None,
        youtube_api_key=None, http_proxy=None, **extra,
    )
    return LiveAdapter(settings)


async def crawl(client: httpx.AsyncClient, key: str, handle: str = HANDLE) -> str:
    r = await client.post("/api/v1/crawls", json={"platform": "tiktok", "handle": handle},
                          headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()["jobRef"]


async def test_a_crawl_through_apify_stores_the_recorded_posts_and_counts_searchably(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    await set_time(db, CAPTURED)
    account_id, key = await create_account(db, credits=200)
    job_ref = await crawl(client, key)
    assert await run_jobs_until_idle(runtime, adapter=live(fake_apify)) == 1

    job = (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()
    assert job["status"] == "completed", job
    # 23 posts in the recorded export; the run's cost as the provider reported it.
    assert job["result"]["postsSeen"] == 23 and job["result"]["newPosts"] == 23
    assert job["result"]["source"] == "apify" and job["result"]["sourceCostUsd"] == 0.0123
    [run] = fake_apify.runs
    assert run.input["profiles"] == [HANDLE] and run.input["profileSorting"] == "latest"
    assert fake_apify.calls[0][2] == f"Bearer {GOOD_TOKEN}"
    [spent] = await rows(db, "SELECT provider, cost_usd, items, job_id FROM provider_runs")
    assert spent == {"provider": "apify", "cost_usd": 0.0123, "items": 23, "job_id": job_ref}

    profile_id = job["result"]["profileId"]
    profile = (await client.get(f"/api/v1/profiles/{profile_id}", headers=auth(key))).json()
    assert profile["follower_count"] == 17 and profile["display_name"] == "Kossof Salon Spa"
    assert profile["approximations"] == {}

    r = await client.post("/api/v1/search/content", headers=auth(key),
                          json={"query": "menselfcare", "timeFrame": "all_time"})
    assert r.status_code == 200, r.text
    [hit] = [p for p in r.json()["results"] if p["platform_post_id"] == "7666525827932228894"]
    # The recorded counts, exact (under 1,000: TikTok shows them as they are), the
    # duration from the actor's milliseconds, and a score against the creator's baseline.
    assert (hit["views"], hit["likes"], hit["comments"], hit["shares"]) == (115, 1, 0, 0)
    assert hit["approximations"] == {} and hit["duration_seconds"] == 10.603
    assert hit["outlier_scores"]["all_time"] is not None
    assert await balance_and_ledger_sum(db, account_id) == (158, 158)  # crawl, profile, search

    # A second replayed run later: one more history point per post, nothing new.
    await set_time(db, CAPTURED + timedelta(days=1))
    async with db.transaction() as s:
        await jobs.enqueue(s, type="refresh", account_id=None, credits=0, origin="catalog",
                           payload={"platform": "tiktok", "handle": HANDLE,
                                    "profileId": profile_id}, target=f"tiktok:{HANDLE}",
                           now=CAPTURED + timedelta(days=1), max_attempts=3)
    assert await run_jobs_until_idle(runtime, adapter=live(fake_apify)) == 1
    assert len(fake_apify.runs) == 2
    [points] = await rows(
        db, "SELECT count(*) AS n FROM post_stats s JOIN posts p ON p.id = s.post_id "
            "WHERE p.platform_post_id = '7666525827932228894'")
    assert points["n"] == 2


async def job_of(client: httpx.AsyncClient, key: str, job_ref: str) -> dict[str, Any]:
    return (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()


async def test_a_refused_token_fails_the_crawl_naming_the_setting_and_refunds_it(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    await set_time(db, CAPTURED)
    account_id, key = await create_account(db, credits=40)
    job_ref = await crawl(client, key)
    await run_jobs_until_idle(runtime, adapter=live(fake_apify, token="apify_api_wrong"))
    job = await job_of(client, key, job_ref)
    assert job["status"] == "failed" and job["error"]["code"] == "source_unavailable"
    assert "SORS_APIFY_TOKEN" in job["error"]["message"]
    assert "apify_api_wrong" not in str(job)  # the token itself is never shown
    assert job["creditsRefunded"] == 40
    assert await balance_and_ledger_sum(db, account_id) == (40, 40)
    assert fake_apify.runs == []  # refused before any run started: nothing spent
    assert await rows(db, "SELECT * FROM provider_runs") == []


async def test_a_failed_actor_run_is_retried_and_its_cost_is_still_counted(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    await set_time(db, CAPTURED)
    _, key = await create_account(db, credits=40)
    fake_apify.next_status = ["FAILED"]
    job_ref = await crawl(client, key)
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    job = await job_of(client, key, job_ref)
    # Waiting for its retry, with the transient error on it.
    assert job["status"] == "pending" and job["error"]["code"] == "platform_unavailable"
    assert "ended FAILED" in job["error"]["message"]
    [spent] = await rows(db, "SELECT status, cost_usd FROM provider_runs")
    assert spent == {"status": "FAILED", "cost_usd": 0.0123}


async def test_an_unknown_handle_is_profile_not_found_and_refunded(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    await set_time(db, CAPTURED)
    account_id, key = await create_account(db, credits=40)
    job_ref = await crawl(client, key, handle="no.such.creator.here")
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    job = await job_of(client, key, job_ref)
    assert job["status"] == "failed" and job["error"]["code"] == "profile_not_found"
    assert await balance_and_ledger_sum(db, account_id) == (40, 40)


async def test_an_empty_answer_for_a_known_creator_is_an_error_not_zero_posts(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    await set_time(db, CAPTURED)
    _, key = await create_account(db, credits=100)
    first = await crawl(client, key)
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    profile_id = (await job_of(client, key, first))["result"]["profileId"]
    fake_apify.items["clockworks~tiktok-scraper"] = []  # the scraper comes back empty
    await set_time(db, CAPTURED + timedelta(days=1))
    async with db.transaction() as s:
        job, _ = await jobs.enqueue(s, type="refresh", account_id=None, credits=0,
                                    origin="catalog", target=f"tiktok:{HANDLE}",
                                    payload={"platform": "tiktok", "handle": HANDLE,
                                             "profileId": profile_id},
                                    now=CAPTURED + timedelta(days=1), max_attempts=3)
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    [state] = await rows(db, "SELECT status, error FROM jobs WHERE id = :j", j=job.id)
    assert state["status"] == "pending" and state["error"]["code"] == "platform_unavailable"
    assert "not a profile with no posts" in state["error"]["message"]
    # The 23 posts are all still there, none marked deleted.
    [left] = await rows(db, "SELECT count(*) AS n FROM posts WHERE profile_id = :p "
                            "AND deleted_at IS NULL", p=profile_id)
    assert left["n"] == 23


async def test_an_instagram_crawl_reads_the_profile_details_and_flags_video_views(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    # The recorded `details` export of 2026-08-28: the profile and its 12 latest posts.
    await set_time(db, datetime(2026, 8, 28, 5, 0, tzinfo=UTC))
    _, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/crawls", headers=auth(key),
                          json={"platform": "instagram", "handle": "nuancedaiman"})
    job_ref = r.json()["jobRef"]
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    job = await job_of(client, key, job_ref)
    assert job["status"] == "completed", job
    assert job["result"]["postsSeen"] == 12
    [run] = fake_apify.runs
    assert run.input == {"directUrls": ["https://www.instagram.com/nuancedaiman/"],
                         "resultsType": "details", "resultsLimit": 12}
    profile = (await client.get(f"/api/v1/profiles/{job['result']['profileId']}",
                                headers=auth(key))).json()
    # Instagram's exact follower count, with the account's name and bio.
    assert profile["follower_count"] == 122_271 and profile["approximations"] == {}
    assert profile["display_name"] == "Aiman Naqvi"
    [row] = await rows(db, "SELECT id FROM posts WHERE platform_post_id = 'DUO8PBWiUD-'")
    record = (await client.get(f"/api/v1/posts/{row['id']}", headers=auth(key))).json()
    # `details` posts carry videoViewCount only (not plays): kept, and flagged as that kind.
    assert (record["views"], record["likes"], record["comments"]) == (410_126, 78_538, 777)
    assert record["approximations"] == {
        "views": "video_views", "shares": "hidden", "duration_seconds": "hidden"}
