"""A remix keeps what stood out in the source's breakdown, and says which ones it kept."""

from __future__ import annotations

from dataclasses import replace

import httpx

from tests.enrichment.api_support import assert_complete_remix
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.remix.fake_openai import FakeOpenAI, json_answer

from .support import creator

REMIX = "/api/v1/remixes"


async def _remix(client: httpx.AsyncClient, key: str, post_id: str) -> str:
    r = await client.post(
        REMIX, json={"postId": post_id, "targetNiche": "home espresso for beginners"},
        headers=auth(key),
    )
    assert r.status_code == 200, r.text
    return r.json()["jobRef"]


async def test_a_remix_keeps_the_hook_type_that_stood_out(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    ordinary, outliers = await creator(db)
    _, key = await create_account(db, credits=200)
    r = await client.post("/api/v1/analyses", json={"postId": outliers[-1]}, headers=auth(key))
    assert r.status_code == 200
    await run_jobs_until_idle(runtime, timeout=120)

    analysed = await _remix(client, key, outliers[-1])
    plain = await _remix(client, key, ordinary[0])  # never analysed
    await run_jobs_until_idle(runtime, timeout=120)

    remix = (await client.get(f"{REMIX}/{analysed}", headers=auth(key))).json()["remix"]
    assert_complete_remix(remix)
    assert remix["kept"]["hookType"] == "question"
    assert remix["kept"]["stoodOut"][0] == "hookType"
    assert remix["script"][0]["label"] == "Hook (question)"
    assert remix["checklist"][0].startswith("Keep the question hook")
    assert "stood out" in remix["checklist"][0]

    other = (await client.get(f"{REMIX}/{plain}", headers=auth(key))).json()["remix"]
    assert_complete_remix(other)
    assert other["kept"] is None and not other["checklist"][0].startswith("Keep")


async def test_the_llm_is_told_what_to_keep(
    runtime, client: httpx.AsyncClient, db, settings, fake_llm: FakeOpenAI
) -> None:
    _, outliers = await creator(db)
    _, key = await create_account(db, credits=200)
    await client.post("/api/v1/analyses", json={"postId": outliers[-1]}, headers=auth(key))
    await run_jobs_until_idle(runtime, timeout=120)
    llm = settings.with_values(**{"llm_base_url": fake_llm.base_url, "llm_model": "fake-llm"})
    fake_llm.queue(json_answer({
        "title": "Espresso, asked", "description": "The question hook, for espresso.",
        "script": [{"segment": 1, "label": "Hook", "startSecond": 0, "endSecond": 3,
                    "visual": "Cup close-up", "voiceover": "Why does nobody dial in like this?",
                    "onScreenText": "Why?"}],
        "checklist": ["Question first", "Text on screen", "Short"],
    }))  # fmt: skip
    job_ref = await _remix(client, key, outliers[-1])
    await run_jobs_until_idle(replace(runtime, settings=llm), timeout=120)
    prompt = fake_llm.requests[-1].prompt
    assert "KEEP" in prompt and "Keep the question hook" in prompt
    remix = (await client.get(f"{REMIX}/{job_ref}", headers=auth(key))).json()["remix"]
    assert remix["engine"] == "fake-llm" and remix["kept"]["hookType"] == "question"
