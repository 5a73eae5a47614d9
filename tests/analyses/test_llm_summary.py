"""The summary phrased by a language model (a real OpenAI-compatible server on loopback):
it may phrase, never invent — a number the evidence does not hold rejects it."""

from __future__ import annotations

from dataclasses import replace

import httpx

from sors.analyses.engine_llm import phrase
from sors.analyses.summary import OFFLINE_ENGINE, numbers_check
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.remix.fake_openai import FakeOpenAI, http_error, json_answer, text_answer

from .support import OUTLIER_HOOK, creator

EVIDENCE = {
    "score": 4.82,
    "peerCount": 14,
    "outlierCount": 2,
    "hook": {"type": "question", "text": OUTLIER_HOOK, "startSecond": 0.2, "endSecond": 2.6},
    "stoodOut": [{"name": "hookType", "value": "question",
                  "baseline": {"usual": "how_to", "share": 0.143, "postCount": 14},
                  "outliers": {"postCount": 2, "share": 1.0},
                  "ordinary": {"postCount": 12, "share": 0.0}}],
}  # fmt: skip


def test_numbers_check_accepts_the_evidence_and_its_roundings_only() -> None:
    ok = "It scored 4.8x (4.82) its usual; 14% of 14 posts open like this, 100% of 2 outliers."
    assert numbers_check(ok, EVIDENCE) == []
    assert numbers_check("It opened at 0.2 s and its hook ended at 2.6 s.", EVIDENCE) == []
    assert numbers_check("It scored 13x its usual with 37 posts.", EVIDENCE) == [13.0, 37.0]


async def test_a_summary_with_a_foreign_number_is_rejected_and_the_offline_one_kept(
    settings, fake_llm: FakeOpenAI
) -> None:
    llm = settings.with_values(**{"llm_base_url": fake_llm.base_url, "llm_model": "fake-llm"})
    fake_llm.queue(
        json_answer({"summary": "Opening with a question did it: both outliers do, at 4.8x."}),
        json_answer({"summary": "The question hook drove 250% more views."}),
        text_answer("no json here"),
        http_error(500),
        http_error(500),
    )
    good = await phrase(llm, EVIDENCE, "offline text")
    assert good.engine == "fake-llm" and good.rejected is None
    assert good.summary.startswith("Opening with a question")
    assert OUTLIER_HOOK in fake_llm.requests[0].prompt  # the model saw the evidence

    invented = await phrase(llm, EVIDENCE, "offline text")
    assert (invented.summary, invented.engine) == ("offline text", OFFLINE_ENGINE)
    assert "250" in (invented.rejected or "")
    unusable = await phrase(llm, EVIDENCE, "offline text")
    assert unusable.summary == "offline text" and "no usable" in (unusable.rejected or "")
    down = await phrase(llm, EVIDENCE, "offline text")
    assert down.summary == "offline text" and "could not be reached" in (down.rejected or "")
    # Without an endpoint the offline engine is used and nothing is sent anywhere.
    before = len(fake_llm.requests)
    plain = await phrase(settings, EVIDENCE, "offline text")
    assert (plain.engine, plain.rejected) == (OFFLINE_ENGINE, None)
    assert len(fake_llm.requests) == before


async def test_the_llm_engine_through_the_analysis_job(
    runtime, client: httpx.AsyncClient, db, settings, fake_llm: FakeOpenAI
) -> None:
    _, outliers = await creator(db)
    _, key = await create_account(db, credits=100)
    llm = settings.with_values(**{"llm_base_url": fake_llm.base_url, "llm_model": "fake-llm"})
    fake_llm.queue(json_answer({"summary": "It made up 999 reasons."}),
                   json_answer({"summary": "Both outliers open with a question; so does this."}))
    refs = []
    for post_id in outliers[:2]:
        r = await client.post("/api/v1/analyses", json={"postId": post_id}, headers=auth(key))
        refs.append(r.json()["jobRef"])
    await run_jobs_until_idle(replace(runtime, settings=llm), timeout=120)
    first, second = [
        (await client.get(f"/api/v1/analyses/{ref}", headers=auth(key))).json()["analysis"]
        for ref in refs
    ]
    rejected, phrased = (first, second) if first["engine"] == OFFLINE_ENGINE else (second, first)
    assert "999" in rejected["summaryNote"] and "999" not in rejected["summary"]
    assert rejected["summary"].startswith("This post scored")
    assert phrased["engine"] == "fake-llm" and phrased["summaryNote"] is None
    assert phrased["summary"] == "Both outliers open with a question; so does this."
