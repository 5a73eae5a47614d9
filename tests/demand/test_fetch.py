"""POST /comments: a job that fetches a post's comments through the configured source —
the simulated world, or Apify's comment actor on a loopback stand-in replaying a recorded
real dataset — charged per started 100 of `limit`, the provider's cost recorded as crawls
record theirs, refunded when the source fails."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.config import Settings
from sors.platforms.live import LiveAdapter
from tests.demand.helpers import KUMPARAN, kumparan_post
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.apify import GOOD_TOKEN, FakeApify, load_items
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import rows, set_time, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")
__all__ = ["sim_time_restored"]

ACTOR = "clockworks~tiktok-comments-scraper"
CAPTURED = datetime(2025, 5, 25, 7, 0, tzinfo=UTC)


@pytest.fixture
def fake_apify() -> Any:
    fake = FakeApify(items={ACTOR: load_items(str(KUMPARAN.relative_to(
        KUMPARAN.parents[2])))}).start()
    yield fake
    fake.stop()


def live(fake: FakeApify, token: str = GOOD_TOKEN) -> LiveAdapter:
    return LiveAdapter(Settings(
        platform_source="live", apify_token=token, apify_base_url=fake.url,
        apify_tiktok_actor="clockworks~tiktok-scraper", apify_tiktok_comments_actor=ACTOR,
        apify_run_timeout_seconds=30, tiktok_source=None, instagram_source=None,
        youtube_source=None, youtube_api_key=None, http_proxy=None))


async def fetch(client: httpx.AsyncClient, key: str, body: dict[str, Any]) -> httpx.Response:
    return await client.post("/api/v1/comments", json=body, headers=auth(key))


async def job(client: httpx.AsyncClient, key: str, ref: str) -> dict[str, Any]:
    return (await client.get(f"/api/v1/jobs/{ref}", headers=auth(key))).json()


async def test_comments_fetched_through_apify_are_kept_typed_with_the_run_s_cost(
    runtime, client: httpx.AsyncClient, db, fake_apify: FakeApify
) -> None:
    await set_time(db, CAPTURED)
    post_id = await kumparan_post(db)
    account_id, key = await create_account(db, credits=100)
    r = await fetch(client, key, {"postId": post_id, "limit": 500})
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "25"  # 5 units of 100 at 5 credits
    queued = r.json()
    assert queued == {"status": "pending", "jobRef": queued["jobRef"], "postId": post_id,
                      "limit": 500}
    # Asked again while it waits: the same job, free.
    again = await fetch(client, key, {"postId": post_id, "limit": 500})
    assert again.json()["jobRef"] == queued["jobRef"]
    assert again.headers["x-credits-charged"] == "0"

    assert await run_jobs_until_idle(runtime, adapter=live(fake_apify)) == 1
    done = await job(client, key, queued["jobRef"])
    assert done["status"] == "completed", done
    assert done["result"] == {"postId": post_id, "commentsSeen": 500, "newComments": 500,
                              "source": "apify", "sourceCostUsd": 0.0123}
    [run] = fake_apify.runs
    assert run.actor == ACTOR and run.input["commentsPerPost"] == 500
    [spent] = await rows(db, "SELECT provider, cost_usd, items, job_id FROM provider_runs")
    assert spent == {"provider": "apify", "cost_usd": 0.0123, "items": 500,
                     "job_id": queued["jobRef"]}
    recorded = {i["cid"]: i["text"] for i in load_items(str(KUMPARAN.relative_to(
        KUMPARAN.parents[2])))}
    stored = await rows(db, "SELECT platform_comment_id AS id, text, source FROM comments")
    assert {r["id"]: r["text"] for r in stored} == recorded
    assert {r["source"] for r in stored} == {"apify"}
    assert await balance_and_ledger_sum(db, account_id) == (75, 75)


async def test_a_failed_comment_run_is_refunded_and_its_cost_still_counted(
    runtime, client: httpx.AsyncClient, db, fake_apify: FakeApify
) -> None:
    await set_time(db, CAPTURED)
    post_id = await kumparan_post(db)
    account_id, key = await create_account(db, credits=10)
    ref = (await fetch(client, key, {"postId": post_id, "limit": 100})).json()["jobRef"]
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)
    fake_apify.next_status = ["FAILED"] * 5  # every attempt's run fails
    await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    for _ in range(5):
        if (await job(client, key, ref))["status"] != "pending":
            break
        async with db.transaction() as s:  # its retry is due now
            await s.execute(text("UPDATE jobs SET run_after = '2000-01-01' WHERE id = :j"),
                            {"j": ref})
        await run_jobs_until_idle(runtime, adapter=live(fake_apify))
    failed = await job(client, key, ref)
    assert failed["status"] == "failed" and failed["creditsRefunded"] == 5, failed
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)
    spent = await rows(db, "SELECT status, cost_usd FROM provider_runs")
    assert spent and {r["status"] for r in spent} == {"FAILED"}
    assert len(spent) == len(fake_apify.runs)
    assert await rows(db, "SELECT id FROM comments") == []


async def test_a_wrong_token_fails_at_once_refunded_and_nothing_spent(
    runtime, client: httpx.AsyncClient, db, fake_apify: FakeApify
) -> None:
    await set_time(db, CAPTURED)
    post_id = await kumparan_post(db)
    account_id, key = await create_account(db, credits=10)
    ref = (await fetch(client, key, {"postId": post_id, "limit": 100})).json()["jobRef"]
    await run_jobs_until_idle(runtime, adapter=live(fake_apify, token="apify_api_wrong"))
    failed = await job(client, key, ref)
    assert failed["status"] == "failed" and failed["creditsRefunded"] == 5, failed
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)
    assert fake_apify.runs == [] and await rows(db, "SELECT * FROM provider_runs") == []


async def test_the_simulated_world_s_comments_arrive_through_the_same_job(
    runtime, client: httpx.AsyncClient, db
) -> None:
    from tests.demand.world import NOW, seed_posts

    post_id = await seed_posts(db)
    _, key = await create_account(db, credits=100)
    await set_time(db, NOW)
    ref = (await fetch(client, key, {"postId": post_id, "limit": 20})).json()["jobRef"]
    assert await run_jobs_until_idle(runtime) == 1
    done = await job(client, key, ref)
    assert done["status"] == "completed", done
    assert done["result"]["source"] == "sim" and done["result"]["sourceCostUsd"] is None
    n = done["result"]["commentsSeen"]
    assert 0 < n <= 20 and done["result"]["newComments"] == n
    stored = await rows(db, "SELECT kind FROM comments WHERE post_id = :p", p=post_id)
    assert len(stored) == n


async def test_unknown_posts_are_404_and_bad_limits_422_and_neither_charges(
    client: httpx.AsyncClient, db
) -> None:
    account_id, key = await create_account(db, credits=10)
    missing = await fetch(client, key, {"postId": "pst_nope", "limit": 10})
    assert missing.status_code == 404 and missing.json()["code"] == "post_not_found"
    for limit in (0, 1001):
        assert (await fetch(client, key, {"postId": "pst_nope", "limit": limit})
                ).status_code == 422
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)
