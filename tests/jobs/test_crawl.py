from __future__ import annotations

from datetime import timedelta

import httpx
from sqlalchemy import func, select, text

from sors.catalog.models import Post, Profile
from sors.jobs.engine import reap
from sors.queue.models import Job
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle


async def test_crawl_new_handle_completes_and_is_stored(
    client: httpx.AsyncClient, db, runtime, settings
) -> None:
    account_id, key = await create_account(db, credits=100)
    r = await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "@Fit.Anna"}, headers=auth(key)
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "pending"
    assert body["handle"] == "fit.anna" and body["platform"] == "tiktok"
    assert r.headers["x-credits-charged"] == "40" and r.headers["x-credits-balance"] == "60"
    job_ref = body["jobRef"]

    # Repeating the open crawl: same job, free.
    r2 = await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "fit.anna"}, headers=auth(key)
    )
    assert r2.json()["jobRef"] == job_ref and r2.headers["x-credits-charged"] == "0"

    st = (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()
    assert st["status"] == "pending" and st["type"] == "crawl" and st["creditsCharged"] == 40

    assert await run_jobs_until_idle(runtime) == 1
    st = (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()
    assert st["status"] == "completed", st
    assert st["result"]["postsSeen"] > 0 and st["result"]["newPosts"] == st["result"]["postsSeen"]
    assert st["finishedAt"] and st["startedAt"] and st["error"] is None
    pid = st["result"]["profileId"]
    async with db.session() as s:
        n = (await s.execute(
            select(func.count()).select_from(Post).where(Post.profile_id == pid))).scalar()
        prof = await s.get(Profile, pid)
    assert n == st["result"]["postsSeen"] and prof.handle == "fit.anna"
    # The all-time average is built from the posts at least 48 h old at the crawl; the
    # younger ones are counted apart (docs/API.md, "Scores and baselines").
    a = prof.averages["all_time"]
    async with db.session() as s:
        mature = (
            await s.execute(
                select(func.count()).select_from(Post).where(
                    Post.profile_id == pid,
                    Post.views.is_not(None),
                    Post.published_at <= prof.last_crawled_at - timedelta(hours=48),
                )
            )
        ).scalar()
    assert a["post_count"] == mature and a["post_count"] + a["young_post_count"] == n

    # Now tracked: 1 credit, no job.
    r3 = await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "fit.anna"}, headers=auth(key)
    )
    assert r3.json() == {
        "status": "completed", "alreadyTracked": True, "profileId": pid, "jobRef": None}
    assert r3.headers["x-credits-charged"] == "1"
    assert await balance_and_ledger_sum(db, account_id) == (59, 59)


async def test_ghost_handle_fails_and_is_refunded_once(
    client: httpx.AsyncClient, db, runtime, settings
) -> None:
    account_id, key = await create_account(db, credits=40)
    r = await client.post(
        "/api/v1/crawls", json={"platform": "instagram", "handle": "ghost_account"},
        headers=auth(key),
    )
    job_ref = r.json()["jobRef"]
    assert r.headers["x-credits-balance"] == "0"
    await run_jobs_until_idle(runtime)
    st = (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()
    assert st["status"] == "failed"
    assert st["error"]["code"] == "profile_not_found"
    assert st["creditsRefunded"] == 40
    # The refund path running again moves nothing.
    from sors.jobs import service as jobs_service

    async with db.transaction() as s:
        job = await s.get(Job, job_ref)
        await jobs_service.fail(s, job, code="profile_not_found", message="again",
                                now=runtime.now())
    assert await balance_and_ledger_sum(db, account_id) == (40, 40)
    async with db.session() as s:
        kinds = (await s.execute(
            text("SELECT kind FROM ledger_entries WHERE account_id=:a ORDER BY id"),
            {"a": account_id},
        )).scalars().all()
    assert kinds == ["grant", "charge", "refund"]


async def test_rolled_back_request_leaves_no_job(client: httpx.AsyncClient, db) -> None:
    account_id, key = await create_account(db, credits=39)
    r = await client.post(
        "/api/v1/crawls", json={"platform": "youtube", "handle": "cookwithsam"}, headers=auth(key)
    )
    assert r.status_code == 402
    body = r.json()
    assert body["code"] == "insufficient_credits"
    assert body["required"] == 40 and body["balance"] == 39
    assert r.headers["x-credits-charged"] == "0" and r.headers["x-credits-balance"] == "39"
    async with db.session() as s:
        assert (await s.execute(select(func.count()).select_from(Job))).scalar() == 0
    assert await balance_and_ledger_sum(db, account_id) == (39, 39)


async def test_bad_handles_are_422_and_free(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db, credits=100)
    for handle in ("a", "has space", "x" * 40, "bad!char"):
        r = await client.post(
            "/api/v1/crawls", json={"platform": "tiktok", "handle": handle}, headers=auth(key)
        )
        assert r.status_code == 422, handle
        assert r.headers["x-credits-charged"] == "0"
    r = await client.post(
        "/api/v1/crawls", json={"platform": "myspace", "handle": "tom"}, headers=auth(key)
    )
    assert r.status_code == 422


async def test_other_accounts_job_is_404(client: httpx.AsyncClient, db) -> None:
    _, key1 = await create_account(db, credits=100)
    _, key2 = await create_account(db, credits=100)
    job_ref = (await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "someone"}, headers=auth(key1)
    )).json()["jobRef"]
    r = await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key2))
    assert r.status_code == 404 and r.json()["code"] == "job_not_found"
    assert (await client.get("/api/v1/jobs/job_nope", headers=auth(key1))).status_code == 404


async def test_stalled_job_is_retried_then_failed_and_refunded(
    client: httpx.AsyncClient, db, runtime
) -> None:
    account_id, key = await create_account(db, credits=40)
    job_ref = (await client.post(
        "/api/v1/crawls", json={"platform": "tiktok", "handle": "stuck.one"}, headers=auth(key)
    )).json()["jobRef"]
    async with db.transaction() as s:
        # A worker claimed it on its last attempt and died: no heartbeat for a long time.
        await s.execute(text(
            "UPDATE jobs SET status='processing', attempts=max_attempts, worker_id='dead', "
            "heartbeat_at=now() - interval '1 hour' WHERE id=:j"), {"j": job_ref})
    assert await reap(db, 60, runtime.now()) == 1
    st = (await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))).json()
    assert st["status"] == "failed" and st["error"]["code"] == "worker_lost"
    assert st["creditsRefunded"] == 40
    assert await balance_and_ledger_sum(db, account_id) == (40, 40)


async def test_a_crawl_takes_a_profile_url_parsed_as_tracking_parses_it(
    client: httpx.AsyncClient, db
) -> None:
    account_id, key = await create_account(db, credits=200)
    h = auth(key)
    r = await client.post("/api/v1/crawls", json={"url": "https://www.tiktok.com/@Fit.Anna?lang=en"},
                          headers=h)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "pending"
    assert (body["platform"], body["handle"]) == ("tiktok", "fit.anna")
    # The same profile named by platform + handle (and by both ways at once): the same open job.
    again = await client.post("/api/v1/crawls", headers=h, json={
        "platform": "tiktok", "handle": "fit.anna", "url": "tiktok.com/@fit.anna/"})
    assert again.status_code == 200 and again.json()["jobRef"] == body["jobRef"]
    yt = await client.post("/api/v1/crawls", json={"url": "https://youtube.com/@CookWithSam/videos"},
                           headers=h)
    assert (yt.json()["platform"], yt.json()["handle"]) == ("youtube", "cookwithsam")
    refused = {
        "https://vm.tiktok.com/ZMabc123/": "short_link_not_supported",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ": "unsupported_url",  # names no owner
        "https://example.com/@fit.anna": "unsupported_url",
        "http://127.0.0.1/@fit.anna": "unsupported_url",
        "https://www.tiktok.com:8443/@fit.anna": "unsupported_url",
    }
    for url, code in refused.items():
        r = await client.post("/api/v1/crawls", json={"url": url}, headers=h)
        assert r.status_code == 422 and r.json()["code"] == code, (url, r.text)
        assert r.headers["x-credits-charged"] == "0"
    for body in ({}, {"platform": "tiktok"}, {"url": None, "handle": None, "platform": None},
                 {"platform": "instagram", "handle": "fit.anna",
                  "url": "https://www.tiktok.com/@fit.anna"}):
        r = await client.post("/api/v1/crawls", json=body, headers=h)
        assert r.status_code == 422 and r.json()["code"] == "validation_error", (body, r.text)
    assert await balance_and_ledger_sum(db, account_id) == (120, 120)
