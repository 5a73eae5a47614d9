"""request_transcript end to end through HTTP on a simulated video whose media are rendered
for real (an espeak-ng voice over drawn cards) and analysed for real: the request, the job,
the transcript and the visual analysis it stores, and a remix made from them. One test per
step, each on a fresh account brought to that step by the steps before it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from sors.remix.engines import OFFLINE_ENGINE_NAME
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle

from .api_support import (
    SimPost,
    assert_complete_remix,
    charged,
    job,
    video_post,
    word_error_rate,
    words,
)

TX = "/api/v1/transcriptions"


@dataclass
class Transcribed:
    """The video, the account asking (100 credits), and the job the first step queued."""

    client: httpx.AsyncClient
    db: Any
    runtime: Any
    post: SimPost
    account_id: str
    key: str
    job_ref: str = ""

    async def before(self, step: Callable[[Transcribed], Awaitable[Any]]) -> None:
        """Run the steps before `step`; their own tests check them."""
        for earlier in STEPS[: STEPS.index(step)]:
            await earlier(self)


@pytest.fixture
async def video(runtime, client: httpx.AsyncClient, db) -> Transcribed:
    post = await video_post(db)
    account_id, key = await create_account(db, credits=100)
    return Transcribed(client, db, runtime, post, account_id, key)


# ---- the steps, in order: each does what the scenario does and returns what it saw


async def request(v: Transcribed) -> tuple[httpx.Response, httpx.Response]:
    """Asked by URL, then again while pending (by id this time)."""
    r = await v.client.post(TX, json={"url": v.post.snap.url}, headers=auth(v.key))
    v.job_ref = r.json().get("jobRef") or ""
    again = await v.client.post(TX, json={"postId": v.post.id}, headers=auth(v.key))
    return r, again


async def run_the_job(v: Transcribed) -> tuple[int, dict[str, Any], httpx.Response]:
    """The worker runs; then the job's status, and the transcript asked for once more."""
    ran = await run_jobs_until_idle(v.runtime, timeout=300)
    st = await job(v.client, v.key, v.job_ref)
    done = await v.client.post(
        TX, json={"postId": v.post.id, "url": v.post.snap.url}, headers=auth(v.key))
    return ran, st, done


async def read_the_post(v: Transcribed) -> httpx.Response:
    return await v.client.get(f"/api/v1/posts/{v.post.id}", headers=auth(v.key))


async def read_the_bare_post(v: Transcribed) -> httpx.Response:
    return await v.client.get(
        f"/api/v1/posts/{v.post.id}?includeTranscript=false&includeVisualAnalysis=false",
        headers=auth(v.key),
    )


STEPS: tuple[Callable[[Transcribed], Awaitable[Any]], ...] = (
    request, run_the_job, read_the_post, read_the_bare_post,
)


# ---- one test per step


async def test_a_request_queues_one_job_and_asking_again_while_pending_is_free(
    video: Transcribed,
) -> None:
    r, again = await request(video)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "pending" and body["postId"] == video.post.id and body["jobRef"]
    assert charged(r) == 10 and r.headers["x-credits-balance"] == "90"
    assert again.json() == {"status": "pending", "jobRef": video.job_ref, "postId": video.post.id}
    assert charged(again) == 0


async def test_the_job_completes_and_asking_after_it_is_free_and_queues_nothing(
    video: Transcribed,
) -> None:
    await video.before(run_the_job)
    ran, st, done = await run_the_job(video)
    assert ran == 1
    assert st["status"] == "completed", st
    assert st["type"] == "transcription" and st["result"] == {"postId": video.post.id}
    assert done.json() == {"status": "completed", "postId": video.post.id, "jobRef": None}
    assert charged(done) == 0
    assert await balance_and_ledger_sum(video.db, video.account_id) == (90, 90)


async def test_the_transcript_is_close_to_the_spoken_script(video: Transcribed) -> None:
    await video.before(read_the_post)
    r = await read_the_post(video)
    assert r.status_code == 200, r.text
    record = r.json()
    assert record["has_transcript"] is True and record["has_visual_analysis"] is True
    transcript = record["transcript"]
    reference = " ".join(video.post.script)
    wer = word_error_rate(reference, transcript["text"])
    print(f"\nWER {wer:.3f}\n  script: {reference!r}\n  heard:  {transcript['text']!r}")
    assert wer < 0.35
    assert transcript["source"] == "speech" and transcript["language"] == "en"
    assert transcript["created_at"].endswith("Z")
    assert transcript["segments"] and set(transcript["segments"][0]) == {"start", "end", "text"}


async def test_the_visual_analysis_finds_the_scenes_and_reads_their_cards(
    video: Transcribed,
) -> None:
    await video.before(read_the_post)
    visual = (await read_the_post(video)).json()["visual_analysis"]
    reference = " ".join(video.post.script)
    assert abs(visual["scene_count"] - len(video.post.script)) <= 1, visual
    assert visual["created_at"].endswith("Z")
    assert len(visual["scenes"]) == visual["scene_count"]
    assert set(visual["scenes"][0]) == {
        "index",
        "start",
        "end",
        "on_screen_text",
        "dominant_colors",
    }
    assert visual["avg_scene_seconds"] > 0
    # The cards' text is read back from the keyframes.
    seen = set(words(visual["on_screen_text"]))
    script_words = words(reference)
    assert sum(w in seen for w in script_words) >= 0.8 * len(script_words), visual["on_screen_text"]


async def test_without_the_include_flags_the_record_carries_neither(video: Transcribed) -> None:
    await video.before(read_the_bare_post)
    r = await read_the_bare_post(video)
    assert "transcript" not in r.json() and "visual_analysis" not in r.json()


async def test_a_remix_works_from_that_transcript_and_those_scenes(video: Transcribed) -> None:
    # (offline engine)
    v = video
    for step in STEPS:
        await step(v)
    r = await v.client.post(
        "/api/v1/remixes",
        json={"postId": v.post.id, "targetNiche": "home espresso for busy parents"},
        headers=auth(v.key),
    )
    assert charged(r) == 20
    assert await run_jobs_until_idle(v.runtime, timeout=300) == 1
    remix = (await v.client.get(f"/api/v1/remixes/{r.json()['jobRef']}",
                                headers=auth(v.key))).json()
    assert remix["status"] == "completed", remix
    assert_complete_remix(remix["remix"])
    assert remix["remix"]["engine"] == OFFLINE_ENGINE_NAME
    # 10 (transcript) + 2 × 1 (get_post) + 20 (remix)
    assert await balance_and_ledger_sum(v.db, v.account_id) == (68, 68)
