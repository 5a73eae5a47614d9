"""remix_post and get_remix_result end to end: the offline engine on a real transcript and
scene analysis, and the LLM engine wired through settings against a real local
OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.remix.engines import OFFLINE_ENGINE_NAME
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.remix.fake_openai import FakeOpenAI, closed_port_url, json_answer, text_answer

from .api_support import assert_complete_remix, charged, job, ledger_kinds, slideshow_post

REMIX = "/api/v1/remixes"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.start()
    yield server
    server.stop()


def llm_remix() -> dict[str, Any]:
    return {
        "title": "Three study hacks, espresso edition",
        "description": "The same list format, moved to home espresso.",
        "script": [
            {"segment": 1, "label": "Hook", "startSecond": 0, "endSecond": 3,
             "visual": "Shot pulling in slow motion", "voiceover": "Three espresso fixes.",
             "onScreenText": "3 espresso fixes"},
            {"segment": 2, "label": "Tips", "startSecond": 3, "endSecond": 12,
             "visual": "Grinder close-up", "voiceover": "Grind finer, weigh the dose.",
             "onScreenText": "Grind finer"},
        ],
        "checklist": ["Hook first", "Text on every shot", "Under 20 seconds"],
    }  # fmt: skip


async def test_offline_remix_end_to_end(runtime, client: httpx.AsyncClient, db, settings) -> None:
    post = await slideshow_post(db)
    account_id, key = await create_account(db, credits=50)
    body = {
        "url": post.snap.url,
        "targetNiche": "  home espresso for busy parents  ",
        "tone": " playful ",
    }
    r = await client.post(REMIX, json=body, headers=auth(key))
    assert r.status_code == 200, r.text
    job_ref = r.json()["jobRef"]
    assert r.json() == {"status": "pending", "jobRef": job_ref, "postId": post.id}
    assert charged(r) == 20 and r.headers["x-credits-balance"] == "30"

    r = await client.get(f"{REMIX}/{job_ref}", headers=auth(key))
    assert r.status_code == 200 and charged(r) == 0
    assert r.json() == {
        "jobRef": job_ref,
        "status": "pending",
        "postId": post.id,
        "targetNiche": "home espresso for busy parents",
        "tone": "playful",
        "remix": None,
        "error": None,
    }

    assert await run_jobs_until_idle(runtime, timeout=300) == 1
    # The jobRef may arrive URL-encoded (even twice).
    encoded = job_ref.replace("_", "%255F", 1)
    r = await client.get(f"{REMIX}/{encoded}", headers=auth(key))
    assert r.status_code == 200, r.text
    result = r.json()
    assert (
        result["status"] == "completed" and result["error"] is None and result["jobRef"] == job_ref
    )
    assert_complete_remix(result["remix"])
    assert result["remix"]["engine"] == OFFLINE_ENGINE_NAME
    st = await job(client, key, job_ref)
    assert st["type"] == "remix" and st["result"] == {"postId": post.id}

    # Transcript and analysis came with it, at no extra charge.
    r = await client.post("/api/v1/transcriptions", json={"postId": post.id}, headers=auth(key))
    assert r.json()["status"] == "completed" and charged(r) == 0
    async with db.session() as s:
        flags = (
            await s.execute(
                text("SELECT has_transcript, has_visual_analysis FROM posts WHERE id=:p"),
                {"p": post.id},
            )
        ).one()
    assert tuple(flags) == (True, True)
    assert await balance_and_ledger_sum(db, account_id) == (30, 30)


async def test_remix_validation_and_ownership(client: httpx.AsyncClient, db) -> None:
    post = await slideshow_post(db)
    _, key = await create_account(db, credits=100, email="one@example.com")
    _, other_key = await create_account(db, credits=100, email="two@example.com")

    bad = [
        {"postId": post.id},
        {"postId": post.id, "targetNiche": "   abc    "},
        {"postId": post.id, "targetNiche": "x" * 501},
        {"postId": post.id, "targetNiche": "valid niche", "tone": "t" * 101},
        {"postId": post.id, "targetNiche": 12345},
    ]
    for body in bad:
        r = await client.post(REMIX, json=body, headers=auth(key))
        assert r.status_code == 422 and r.json()["code"] == "validation_error", body
        assert charged(r) == 0
    r = await client.post(REMIX, json={"targetNiche": "valid niche"}, headers=auth(key))
    assert r.json()["code"] == "missing_target"
    r = await client.post(
        REMIX, json={"postId": "pst_nope", "targetNiche": "valid niche"}, headers=auth(key)
    )
    assert r.status_code == 404 and r.json()["code"] == "post_not_found"

    body = {"postId": post.id, "targetNiche": "x" * 500, "tone": "   "}
    r = await client.post(REMIX, json=body, headers=auth(key))
    assert r.status_code == 200 and charged(r) == 20
    job_ref = r.json()["jobRef"]
    mine = (await client.get(f"{REMIX}/{job_ref}", headers=auth(key))).json()
    assert mine["tone"] is None and len(mine["targetNiche"]) == 500

    r = await client.get(f"{REMIX}/{job_ref}", headers=auth(other_key))
    assert r.status_code == 404 and r.json()["code"] == "job_not_found"
    r = await client.get(f"{REMIX}/job_unknown", headers=auth(key))
    assert r.status_code == 404 and r.json()["code"] == "job_not_found"
    # A job of another type is not a remix.
    tx = await client.post("/api/v1/transcriptions", json={"postId": post.id}, headers=auth(key))
    r = await client.get(f"{REMIX}/{tx.json()['jobRef']}", headers=auth(key))
    assert r.status_code == 404
    # Each remix request is its own job.
    r2 = await client.post(REMIX, json=body, headers=auth(key))
    assert r2.json()["jobRef"] != job_ref and charged(r2) == 20


async def test_llm_remix_wired_through_settings(
    runtime, client: httpx.AsyncClient, db, settings, fake_llm: FakeOpenAI
) -> None:
    fake_llm.reset()
    llm_settings = settings.with_values(llm_base_url=fake_llm.base_url, llm_model="fake-llm")
    post = await slideshow_post(db)
    account_id, key = await create_account(db, credits=40)
    body = {"postId": post.id, "targetNiche": "home espresso for beginners"}
    good = (await client.post(REMIX, json=body, headers=auth(key))).json()["jobRef"]
    malformed = (await client.post(REMIX, json=body, headers=auth(key))).json()["jobRef"]
    fake_llm.queue(
        json_answer(llm_remix()),
        text_answer("Sure! Here is your remix: title = espresso"),
        text_answer(json.dumps({"title": "no script"})),
        text_answer('```json\n{"still": "wrong"}\n```'),
    )

    assert await run_jobs_until_idle(replace(runtime, settings=llm_settings), timeout=300) == 2
    r = (await client.get(f"{REMIX}/{good}", headers=auth(key))).json()
    assert r["status"] == "completed", r
    assert_complete_remix(r["remix"])
    assert r["remix"]["engine"] == "fake-llm" and r["remix"]["title"] == llm_remix()["title"]
    # The model saw the post's real (OCR) transcript and the requested niche.
    assert "home espresso for beginners" in fake_llm.requests[0].prompt
    assert post.slides[0].split()[0].lower() in fake_llm.requests[0].prompt.lower()

    r = (await client.get(f"{REMIX}/{malformed}", headers=auth(key))).json()
    assert r["status"] == "failed" and r["remix"] is None
    assert r["error"]["code"] == "llm_bad_output" and "3 attempts" in r["error"]["message"]
    assert len(fake_llm.requests) == 4  # one good answer, three unusable ones
    st = await job(client, key, malformed)
    assert st["creditsRefunded"] == 20
    assert await balance_and_ledger_sum(db, account_id) == (20, 20)
    assert await ledger_kinds(db, account_id) == ["grant", "charge", "charge", "refund"]

    # The endpoint down: retried while attempts remain, then failed and refunded once.
    down = settings.with_values(**{"llm_base_url": closed_port_url(), "llm_model": "fake-llm"})
    job_ref = (await client.post(REMIX, json=body, headers=auth(key))).json()["jobRef"]
    await run_jobs_until_idle(replace(runtime, settings=down), timeout=300)
    r = (await client.get(f"{REMIX}/{job_ref}", headers=auth(key))).json()
    # Waiting for another attempt, with the transient error visible.
    assert r["status"] == "pending" and r["error"]["code"] == "llm_unavailable", r
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)
    async with db.transaction() as s:  # its last attempt, due now
        await s.execute(
            text("UPDATE jobs SET run_after = now(), max_attempts = attempts + 1 WHERE id = :j"),
            {"j": job_ref},
        )
    await run_jobs_until_idle(replace(runtime, settings=down), timeout=300)
    r = (await client.get(f"{REMIX}/{job_ref}", headers=auth(key))).json()
    assert r["status"] == "failed" and r["error"]["code"] == "llm_unavailable"
    assert (await job(client, key, job_ref))["creditsRefunded"] == 20
    assert await balance_and_ledger_sum(db, account_id) == (20, 20)
    kinds = await ledger_kinds(db, account_id)
    assert kinds == ["grant", "charge", "charge", "refund", "charge", "refund"]
