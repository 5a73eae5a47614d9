"""request_transcript end to end through HTTP, on simulated posts whose media are rendered
for real (espeak-ng voice, drawn slides) and analysed for real; its failures, refunded once."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from sors.enrichment import speech
from sors.queue.models import Job
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle

from .api_support import (
    charged,
    job,
    ledger_kinds,
    pick,
    slideshow_post,
    video_post,
    words,
)

TX = "/api/v1/transcriptions"
MEDIA = "/api/v1/posts/media"


# ---- request_transcript ------------------------------------------------------------------


async def test_a_worker_loads_the_speech_model_once_for_all_its_transcriptions(
    runtime, client: httpx.AsyncClient, db, settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faster_whisper

    class CountingModel(faster_whisper.WhisperModel):  # the real model, counted
        loads = 0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            type(self).loads += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(faster_whisper, "WhisperModel", CountingModel)
    speech._load.cache_clear()  # an earlier test in this process may have loaded it
    try:
        first = await video_post(db)
        second = await pick(
            db,
            "tiktok",
            "study.with.leo",
            "video",
            lambda p: p.platform_post_id != first.snap.platform_post_id,
            lambda p: p.duration_seconds or 0,
        )
        _, key = await create_account(db, credits=100)
        refs = []
        for post in (first, second):
            r = await client.post(TX, json={"postId": post.id}, headers=auth(key))
            assert r.status_code == 200, r.text
            refs.append(r.json()["jobRef"])

        # Two jobs in one worker, two slots: both transcribed, by one loaded model.
        assert await run_jobs_until_idle(runtime, concurrency=2, timeout=300) == 2
        for ref in refs:
            assert (await job(client, key, ref))["status"] == "completed"
        assert CountingModel.loads == 1
    finally:
        speech._load.cache_clear()  # later tests load the plain model again


async def test_slideshow_transcript_is_its_rendered_text(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    post = await slideshow_post(db)
    _, key = await create_account(db, credits=10)
    r = await client.post(TX, json={"postId": post.id}, headers=auth(key))
    assert charged(r) == 10, r.text
    await run_jobs_until_idle(runtime, timeout=300)
    assert (await job(client, key, r.json()["jobRef"]))["status"] == "completed"

    from sors.catalog.records.service import transcript_for, visual_analysis_for

    async with db.session() as s:
        transcript = await transcript_for(s, post.id)
        visual = await visual_analysis_for(s, post.id)
    assert transcript is not None and visual is not None
    transcript, visual = transcript.model_dump(), visual.model_dump()  # the records' shapes
    assert transcript["source"] == "on_screen_text"
    expected = words(" ".join(post.slides))
    heard = set(words(transcript["text"]))
    found = [w for w in expected if w in heard]
    assert len(found) >= 0.9 * len(expected), (post.slides, transcript["text"])
    assert [s["start"] for s in transcript["segments"]] == [
        float(i) for i in range(len(post.slides))
    ]
    assert visual["scene_count"] == len(post.slides) and visual["avg_scene_seconds"] is None


async def test_target_rules(client: httpx.AsyncClient, db) -> None:
    video = await video_post(db)
    other = await slideshow_post(db)
    _, key = await create_account(db, credits=100)

    async def post(body: object) -> httpx.Response:
        return await client.post(TX, json=body, headers=auth(key))

    for body in ({}, {"url": ""}, {"url": "  ", "postId": None}):
        r = await post(body)
        assert r.status_code == 422 and r.json()["code"] == "missing_target", body
        assert charged(r) == 0
    r = await client.post(TX, headers=auth(key))
    assert r.status_code == 422 and r.json()["code"] == "missing_target"

    cases = {
        "https://vm.tiktok.com/ZMabcdef/": (422, "short_link_not_supported"),
        "https://example.com/@a/video/7301234567890123456": (422, "unsupported_url"),
        "https://www.tiktok.com/@study.with.leo": (422, "unsupported_url"),
        "https://www.tiktok.com/@nobody.here/video/7301234567890123456": (404, "post_not_found"),
    }
    for url, (status, code) in cases.items():
        r = await post({"url": url})
        assert (r.status_code, r.json()["code"]) == (status, code), url
        assert charged(r) == 0
    r = await post({"postId": "pst_unknown"})
    assert (r.status_code, r.json()["code"]) == (404, "post_not_found")
    r = await post({"postId": video.id, "url": other.snap.url})
    assert (r.status_code, r.json()["code"]) == (422, "validation_error")
    r = await post({"postId": 12})
    assert (r.status_code, r.json()["code"]) == (422, "validation_error")
    r = await client.post(
        TX, content=b"[1]", headers={**auth(key), "content-type": "application/json"}
    )
    assert r.status_code == 400

    async with db.session() as s:
        assert (await s.execute(select(func.count()).select_from(Job))).scalar() == 0


async def test_insufficient_credits_queues_nothing(client: httpx.AsyncClient, db) -> None:
    post = await video_post(db)
    account_id, key = await create_account(db, credits=9)
    r = await client.post(TX, json={"postId": post.id}, headers=auth(key))
    assert r.status_code == 402 and r.json()["required"] == 10
    assert charged(r) == 0 and r.headers["x-credits-balance"] == "9"
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(await _key_with(db, 2)))
    assert r.status_code == 402
    async with db.session() as s:
        assert (await s.execute(select(func.count()).select_from(Job))).scalar() == 0
    assert await balance_and_ledger_sum(db, account_id) == (9, 9)


async def _key_with(db, credits: int) -> str:
    return (await create_account(db, credits=credits, email=f"c{credits}@example.com"))[1]


# ---- failures: one clear error, one refund -----------------------------------------------


async def _fails_with(
    client, db, runtime, key, account_id, post_id, code, *, path=TX, cost=10, ctx_settings=None
):
    r = await client.post(path, json={"postId": post_id}, headers=auth(key))
    assert r.status_code == 200 and charged(r) == cost, r.text
    job_ref = r.json()["jobRef"]
    rt = replace(runtime, settings=ctx_settings) if ctx_settings else runtime
    await run_jobs_until_idle(rt, timeout=300)
    st = await job(client, key, job_ref)
    assert st["status"] == "failed", st
    assert st["error"]["code"] == code and st["error"]["message"], st
    assert st["creditsRefunded"] == cost
    balance, ledger = await balance_and_ledger_sum(db, account_id)
    assert balance == ledger
    return st


async def test_unfetchable_media_fails_and_refunds_once(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    post = await video_post(db)
    account_id, key = await create_account(db, credits=13)
    async with db.transaction() as s:
        # The platform no longer has this post (its id now names nothing).
        await s.execute(
            text("UPDATE posts SET platform_post_id = '7000000000000000001' WHERE id = :p"),
            {"p": post.id},
        )
    st = await _fails_with(client, db, runtime, key, account_id, post.id, "media_unavailable")
    assert "post_not_found" in st["error"]["message"]
    await _fails_with(
        client, db, runtime, key, account_id, post.id, "media_unavailable", path=MEDIA, cost=3
    )
    assert await balance_and_ledger_sum(db, account_id) == (13, 13)
    assert await ledger_kinds(db, account_id) == ["grant", "charge", "refund", "charge", "refund"]
    # Settling the failed job again refunds nothing more.
    from sors.jobs import service as jobs_service

    async with db.transaction() as s:
        failed = (await s.execute(select(Job).where(Job.account_id == account_id))).scalars().all()
        for j in failed:
            await jobs_service.fail(s, j, code="again", message="again", now=runtime.now())
    assert await balance_and_ledger_sum(db, account_id) == (13, 13)


async def test_unsupported_post_fails_and_refunds(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    post = await slideshow_post(db)
    account_id, key = await create_account(db, credits=10)
    async with db.transaction() as s:
        await s.execute(
            text("UPDATE posts SET content_type = 'story' WHERE id = :p"), {"p": post.id}
        )
    st = await _fails_with(client, db, runtime, key, account_id, post.id, "unsupported_post")
    assert "story" in st["error"]["message"]
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)


async def test_model_error_fails_and_refunds(
    runtime, client: httpx.AsyncClient, db, settings, tmp_path
) -> None:
    post = await video_post(db)
    account_id, key = await create_account(db, credits=10)
    broken = settings.with_values(**{"whisper_model": str(tmp_path / "no-such-model")})
    await _fails_with(
        client, db, runtime, key, account_id, post.id, "model_unavailable", ctx_settings=broken
    )
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)
    async with db.session() as s:
        has = (
            await s.execute(text("SELECT has_transcript FROM posts WHERE id = :p"), {"p": post.id})
        ).scalar()
    assert has is False
