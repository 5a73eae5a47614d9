"""analyze_post, get_analysis_result and get_post's analysis through HTTP, on the one money
path (charged on queueing, refunded on failure, dry-run quotes), against real PostgreSQL."""

from __future__ import annotations

import httpx
from sqlalchemy import text

from sors.analyses.summary import OFFLINE_ENGINE
from tests.api.bodies import assert_body_matches
from tests.enrichment.api_support import charged, job, ledger_kinds
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.webhooks.helpers import create_endpoint

from .support import HOOK_SPAN, OUTLIER_HOOK, creator

ANALYSES = "/api/v1/analyses"


async def analyse(client: httpx.AsyncClient, runtime, key: str, post_id: str, app) -> dict:
    """Queue an analysis, run it, and read its result (checked against the response model)."""
    r = await client.post(ANALYSES, json={"postId": post_id}, headers=auth(key))
    assert r.status_code == 200, r.text
    assert charged(r) == 15
    job_ref = r.json()["jobRef"]
    assert r.json() == {"status": "pending", "jobRef": job_ref, "postId": post_id}
    assert await run_jobs_until_idle(runtime, timeout=120) >= 1
    r = await client.get(f"{ANALYSES}/{job_ref}", headers=auth(key))
    assert r.status_code == 200 and charged(r) == 0, r.text
    body = r.json()
    assert body["status"] == "completed" and body["jobRef"] == job_ref, body
    assert_body_matches(app, "GET", "/api/v1/analyses/{jobRef}", body)
    return body


async def test_a_question_hook_that_only_the_outliers_use_stands_out_with_its_timestamps(
    runtime, client: httpx.AsyncClient, db, settings, app
) -> None:
    _, outliers = await creator(db)
    account_id, key = await create_account(db, credits=100)
    result = await analyse(client, runtime, key, outliers[-1], app)
    a = result["analysis"]
    assert a["engine"] == OFFLINE_ENGINE and a["summaryNote"] is None
    assert a["peerCount"] == 14 and a["outlierCount"] == 2 and a["analysedPeerCount"] == 14
    assert a["score"] >= 3
    assert a["hook"]["type"] == "question" and a["hook"]["text"] == OUTLIER_HOOK
    names = [i["name"] for i in a["stoodOut"]]
    assert names[0] == "hookType", names
    hook = a["stoodOut"][0]
    assert hook["value"] == "question"
    assert hook["baseline"]["usual"] == "how_to" and hook["baseline"]["postCount"] == 14
    assert hook["outliers"] == {"postCount": 2, "share": 1.0}
    assert hook["ordinary"] == {"postCount": 12, "share": 0.0}
    assert hook["timestamps"] == [{"startSecond": HOOK_SPAN[0], "endSecond": HOOK_SPAN[1]}]
    assert hook["transcriptLine"] == OUTLIER_HOOK
    assert "question hook" in a["summary"] and OUTLIER_HOOK in a["summary"]
    # Every feature is listed with its baseline.
    rows = {f["name"]: f for f in a["features"]}
    assert rows["durationSeconds"]["baseline"]["median"] == 20.0
    assert rows["cutsPerMinute"]["value"] == 9.0 and rows["timeToFirstCut"]["value"] == 3.0
    assert await balance_and_ledger_sum(db, account_id) == (85, 85)

    # Kept on the post, shown by get_post at no extra cost (and left out on request).
    r = await client.get(f"/api/v1/posts/{outliers[-1]}", headers=auth(key))
    assert r.status_code == 200 and charged(r) == 1
    assert r.json()["analysis"]["stoodOut"][0]["name"] == "hookType"
    assert r.json()["analysis"]["summary"] == a["summary"]
    assert_body_matches(app, "GET", "/api/v1/posts/{postId}", r.json())
    r = await client.get(
        f"/api/v1/posts/{outliers[-1]}", params={"includeAnalysis": "false"}, headers=auth(key)
    )
    assert "analysis" not in r.json()


async def test_a_post_like_all_the_others_gets_no_invented_difference(
    runtime, client: httpx.AsyncClient, db, settings, app
) -> None:
    ordinary, _ = await creator(db)
    _, key = await create_account(db, credits=100)
    a = (await analyse(client, runtime, key, ordinary[5], app))["analysis"]
    assert a["stoodOut"] == []
    assert a["hook"]["type"] == "how_to"
    # Its hook, pace, cuts and caption are the creator's usual: nothing is said about them
    # (the creator posts on a different weekday every day, so a weekday may be rare).
    assert {f["feature"] for f in a["findings"]} <= {"publishWeekday", "publishHour"}
    if not [f for f in a["findings"] if f["kind"] == "unusual"]:
        assert "Nothing stood out" in a["summary"]


async def test_too_few_outliers_say_so_rather_than_guess(
    runtime, client: httpx.AsyncClient, db, settings, app
) -> None:
    _, outliers = await creator(db, outliers=1)
    _, key = await create_account(db, credits=100)
    a = (await analyse(client, runtime, key, outliers[0], app))["analysis"]
    assert a["stoodOut"] == [] and a["outlierCount"] == 0
    # No other outlier and no niche (the hand-made creator has none): the comparison says
    # why, and no finding claims what outliers share.
    assert a["comparison"]["group"] == "creator"
    assert "no other outlier" in a["comparison"]["reason"] and "no niche" in a["summary"]
    assert all(f["outliers"] is None for f in a["findings"])
    assert "Not one of those posts is an outlier" in a["summary"]


async def test_money_dry_run_ownership_and_refund_on_failure(
    runtime, client: httpx.AsyncClient, db, settings, app
) -> None:
    ordinary, _ = await creator(db)
    account_id, key = await create_account(db, credits=20, email="one@example.com")
    _, other = await create_account(db, credits=20, email="two@example.com")

    r = await client.post(ANALYSES, json={"postId": ordinary[0]},
                          headers={**auth(key), "X-Dry-Run": "true"})
    assert r.status_code == 200, r.text
    assert await balance_and_ledger_sum(db, account_id) == (20, 20)
    async with db.session() as s:
        queued = (await s.execute(text("SELECT count(*) FROM jobs WHERE type='analysis'"))).scalar()
    assert queued == 0

    r = await client.post(ANALYSES, json={}, headers=auth(key))
    assert r.status_code == 422 and r.json()["code"] == "missing_target" and charged(r) == 0
    r = await client.post(ANALYSES, json={"postId": "pst_nope"}, headers=auth(key))
    assert r.status_code == 404 and charged(r) == 0

    r = await client.post(ANALYSES, json={"postId": ordinary[0]}, headers=auth(key))
    job_ref = r.json()["jobRef"]
    assert charged(r) == 15
    r = await client.get(f"{ANALYSES}/{job_ref}", headers=auth(other))
    assert r.status_code == 404 and r.json()["code"] == "job_not_found"
    pending = (await client.get(f"{ANALYSES}/{job_ref}", headers=auth(key))).json()
    assert pending["status"] == "pending" and pending["analysis"] is None

    # Not enough credits for a second one: 402, nothing queued.
    r = await client.post(ANALYSES, json={"postId": ordinary[1]}, headers=auth(key))
    assert r.status_code == 402

    # The post disappears before the job runs: the job fails and is refunded once.
    async with db.transaction() as s:
        await s.execute(text("UPDATE jobs SET payload = jsonb_build_object('postId', 'pst_gone') "
                             "WHERE id = :j"), {"j": job_ref})
    await run_jobs_until_idle(runtime, timeout=60)
    failed = (await client.get(f"{ANALYSES}/{job_ref}", headers=auth(key))).json()
    assert failed["status"] == "failed" and failed["error"]["code"] == "post_not_found"
    assert (await job(client, key, job_ref))["creditsRefunded"] == 15
    assert await balance_and_ledger_sum(db, account_id) == (20, 20)
    assert await ledger_kinds(db, account_id) == ["grant", "charge", "refund"]


async def test_analysis_completed_is_delivered_to_webhooks(
    runtime, client: httpx.AsyncClient, db, settings, app, receiver
) -> None:
    _, outliers = await creator(db)
    _, key = await create_account(db, credits=100)
    ep = await create_endpoint(
        client, key, receiver.url, events=["analysis.completed", "job.completed"]
    )
    result = await analyse(client, runtime, key, outliers[0], app)
    await run_jobs_until_idle(runtime, timeout=60)  # the deliveries
    [got] = receiver.of_type("analysis.completed")
    data = got.verify(ep["secret"])["data"]
    assert data["jobRef"] == result["jobRef"] and data["postId"] == outliers[0]
    assert data["stoodOut"][0] == "hookType"
    assert data["summary"] == result["analysis"]["summary"]
    [done] = receiver.of_type("job.completed")
    assert done.verify(ep["secret"])["data"]["type"] == "analysis"
