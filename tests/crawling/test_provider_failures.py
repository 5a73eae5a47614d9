"""Provider failures read by what they are, from recorded answers (tests/fixtures/sources):
only "gone" deactivates a catalog creator; a private account or a failing run leaves it
active, the failing run retried."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from sors.config import Settings
from sors.jobs import service as jobs
from sors.platforms.live import LiveAdapter
from tests.crawling.test_apify_crawls import job_of, live
from tests.factories import auth, create_account
from tests.factories.apify import FakeApify, load_items
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import hand_crawl, ingest, rows, set_time
from tests.platforms.live.support import quiet_pacers

pytestmark = pytest.mark.usefixtures("sim_time_restored")

ACTOR = "apify~instagram-scraper"
HANDLE = "nuancedaiman"
# The recorded `details` export is of 2026-08-28.
CAPTURED = datetime(2026, 8, 28, 5, 0, tzinfo=UTC)
# Two real answers of Instagram actors (2026-08-15): `not_found` ("Post does not exist", for
# a missing profile as for a missing post) and `no_items` ("Empty or private data").
NOT_FOUND = load_items(
    "apify/errors/instagram-api-scraper_details_profile_not_found_2026-08-15.json")
NO_ITEMS = [i for i in load_items("apify/instagram/posts_mixed_2026-08-15.json") if "error" in i]


async def _known_creator(runtime, client: httpx.AsyncClient, db, fake: FakeApify) -> str:
    """The creator crawled once (a paid crawl); its catalog profile id."""
    await set_time(db, CAPTURED)
    _, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/crawls", headers=auth(key),
                          json={"platform": "instagram", "handle": HANDLE})
    await run_jobs_until_idle(runtime, adapter=live(fake))
    job = await job_of(client, key, r.json()["jobRef"])
    assert job["status"] == "completed", job
    return job["result"]["profileId"]


async def _keeper_crawl(runtime, db, fake: FakeApify, profile_id: str) -> dict[str, Any]:
    at = CAPTURED + timedelta(days=1)
    await set_time(db, at)
    async with db.transaction() as s:
        job, _ = await jobs.enqueue(s, type="refresh", account_id=None, credits=0,
                                    origin="catalog", target=f"instagram:{HANDLE}",
                                    payload={"platform": "instagram", "handle": HANDLE,
                                             "profileId": profile_id},
                                    now=at, max_attempts=3)
    await run_jobs_until_idle(runtime, adapter=live(fake))
    [state] = await rows(db, "SELECT j.status, j.error, j.result, j.attempts, p.is_active "
                             "FROM jobs j, profiles p WHERE j.id = :j AND p.id = :p",
                         j=job.id, p=profile_id)
    return state


async def test_a_recorded_not_found_answer_deactivates_the_catalog_creator(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    profile_id = await _known_creator(runtime, client, db, fake_apify)
    fake_apify.answer[ACTOR] = NOT_FOUND
    state = await _keeper_crawl(runtime, db, fake_apify, profile_id)
    assert state["status"] == "completed" and state["result"]["skipped"] == "profile_not_found"
    assert state["is_active"] is False


async def test_a_recorded_private_answer_leaves_the_creator_active(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    profile_id = await _known_creator(runtime, client, db, fake_apify)
    [item] = NO_ITEMS
    assert item["error"] == "no_items" and "private" in item["errorDescription"]
    fake_apify.answer[ACTOR] = NO_ITEMS
    state = await _keeper_crawl(runtime, db, fake_apify, profile_id)
    # The words "private" and "Empty" do not make it gone: failed, not retried, still active.
    assert state["status"] == "failed" and state["error"]["code"] == "profile_private"
    assert state["is_active"] is True


async def test_a_failed_provider_run_is_retried_and_the_creator_stays_active(
    runtime, client: httpx.AsyncClient, db, settings, fake_apify: FakeApify, app
) -> None:
    profile_id = await _known_creator(runtime, client, db, fake_apify)
    fake_apify.next_status = ["FAILED"]
    state = await _keeper_crawl(runtime, db, fake_apify, profile_id)
    # Waiting for its retry (with backoff), the transient error on it; nothing deactivated.
    assert state["status"] == "pending" and state["error"]["code"] == "platform_unavailable"
    assert state["is_active"] is True
    [left] = await rows(db, "SELECT count(*) AS n FROM posts WHERE profile_id = :p "
                            "AND deleted_at IS NULL", p=profile_id)
    assert left["n"] == 12


SOURCES = Path(__file__).parents[1] / "fixtures" / "sources"
# A real Data API answer (tests/fixtures/sources/README.md): 403 with reason
# SERVICE_UNAVAILABLE, the API's own word for "try again".
YOUTUBE_UNAVAILABLE = json.loads((SOURCES / "youtube_api/errors/permission_denied_403_2022.json")
                                 .read_text())


async def test_a_recorded_transient_youtube_answer_is_retried_and_the_creator_stays_active(
    runtime, db, settings, app
) -> None:
    at = CAPTURED + timedelta(days=1)
    await set_time(db, at)
    crawl = hand_crawl("cookwithsam", [], at - timedelta(days=1))
    profile_id = await ingest(db, replace(
        crawl, profile=replace(crawl.profile, platform="youtube")))
    answered: list[httpx.Request] = []

    def youtube(request: httpx.Request) -> httpx.Response:
        answered.append(request)
        return httpx.Response(403, json=YOUTUBE_UNAVAILABLE)

    async with httpx.AsyncClient(transport=httpx.MockTransport(youtube)) as http:
        adapter = LiveAdapter(Settings(platform_source="live", youtube_api_key="test-key",
                                       youtube_source=None, http_proxy=None),
                              http_client=http, pacers=quiet_pacers())
        async with db.transaction() as s:
            job, _ = await jobs.enqueue(s, type="refresh", account_id=None, credits=0,
                                        origin="catalog", target="youtube:cookwithsam",
                                        payload={"platform": "youtube", "handle": "cookwithsam",
                                                 "profileId": profile_id},
                                        now=at, max_attempts=3)
        await run_jobs_until_idle(runtime, adapter=adapter)
    [state] = await rows(db, "SELECT j.status, j.error, j.attempts, p.is_active "
                             "FROM jobs j, profiles p WHERE j.id = :j AND p.id = :p",
                         j=job.id, p=profile_id)
    assert answered and answered[0].url.host == "www.googleapis.com"
    # Waiting for its retry, the transient error on it; the creator still active.
    assert state["status"] == "pending" and state["attempts"] == 1, state
    assert state["error"]["code"] == "platform_unavailable", state
    assert state["is_active"] is True
