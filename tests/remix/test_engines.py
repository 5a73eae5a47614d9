"""Remix engines: the offline engine on real inputs, the LLM engine over real HTTP."""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from typing import Any

import pytest

from sors.config import Settings
from sors.remix.engine_llm import normalize_base_url, parse_draft
from sors.remix.engines import (
    OFFLINE_ENGINE_NAME,
    LLMRemixEngine,
    OfflineRemixEngine,
    Remix,
    RemixEngine,
    RemixError,
    RemixInput,
    get_engine,
)
from sors.remix.schemas_remix import RemixDraft

from .fake_openai import FakeOpenAI, closed_port_url, http_error, json_answer, text_answer
from .inputs import remix_input

SEGMENT_KEYS = [
    "segment",
    "label",
    "startSecond",
    "endSecond",
    "visual",
    "voiceover",
    "onScreenText",
]

PASTA_SEGMENTS: list[dict[str, Any]] = [
    {"start": 0.0, "end": 2.1, "text": "Stop boiling your pasta like this."},
    {"start": 2.3, "end": 6.0, "text": "Most people drown their pasta in water."},
    {"start": 6.2, "end": 12.5, "text": "Use half the water and stir the pasta twice."},
    {"start": 12.8, "end": 18.0, "text": "The starch makes the sauce cling."},
    {"start": 19.0, "end": 23.5, "text": "Follow for more pasta tricks!"},
]
PASTA_SCENES = [
    {"index": 0, "start": 0.0, "end": 2.2, "on_screen_text": "STOP boiling pasta like this",
     "dominant_colors": ["#f4e1c1", "#2b2b2b"]},
    {"index": 1, "start": 2.2, "end": 6.1, "on_screen_text": "", "dominant_colors": ["#ffffff"]},
    {"index": 2, "start": 6.1, "end": 12.6, "on_screen_text": "half the water",
     "dominant_colors": []},
    {"index": 3, "start": 12.6, "end": 18.4, "on_screen_text": "", "dominant_colors": []},
    {"index": 4, "start": 18.4, "end": 24.0, "on_screen_text": "follow for more",
     "dominant_colors": []},
]  # fmt: skip


def pasta(**overrides: Any) -> RemixInput:
    values: dict[str, Any] = {
        "platform": "tiktok",
        "content_type": "video",
        "caption": "The pasta trick nobody told you about #pasta #cooking",
        "duration_seconds": 24.0,
        "views": 1_830_000,
        "outlier_score": 4.1,
        "handle": "chef.lu",
        "transcript_text": " ".join(s["text"] for s in PASTA_SEGMENTS),
        "transcript_segments": copy.deepcopy(PASTA_SEGMENTS),
        "scenes": copy.deepcopy(PASTA_SCENES),
        "target_niche": "home espresso for busy parents",
        "tone": None,
    }
    values.update(overrides)
    return remix_input(**values)


def fitness_segments() -> list[dict[str, Any]]:
    return [
        {"start": 0.0, "end": 3.0, "text": "Why do your squats hurt your knees?"},
        {"start": 3.0, "end": 9.0, "text": "Your squats start from the knees, not the hips."},
        {"start": 9.0, "end": 15.0, "text": "Push your hips back first and squats feel easy."},
        {"start": 15.0, "end": 20.0, "text": "Save this for your next leg day."},
    ]


def valid_remix_json(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": "Stop brewing your espresso like this",
        "description": "A warning hook adapted for home espresso.",
        "script": [
            {"segment": 1, "label": "Hook", "startSecond": 0, "endSecond": 2.5,
             "visual": "Close-up of a sour shot", "voiceover": "Stop brewing espresso like this.",
             "onScreenText": "STOP doing this"},
            {"segment": 2, "label": "Fix", "startSecond": 2.5, "endSecond": 12,
             "visual": "Grinder dial turning", "voiceover": "Grind finer and dose 18 grams.",
             "onScreenText": "Grind finer"},
            {"segment": 3, "label": "Call to action", "startSecond": 12, "endSecond": 20,
             "visual": "Latte art pour", "voiceover": "Follow for more espresso fixes!",
             "onScreenText": "Follow for more"},
        ],
        "checklist": ["Hook in the first 2 seconds", "On-screen text on every shot",
                      "Keep it under 25 seconds"],
    }  # fmt: skip
    data.update(overrides)
    return data


def assert_contract_shape(remix: Remix) -> None:
    d = remix.model_dump()
    assert list(d) == ["title", "description", "script", "checklist", "engine"]
    assert d["title"].strip() and d["description"].strip() and d["engine"].strip()
    assert 3 <= len(d["checklist"]) <= 10
    assert all(isinstance(item, str) and item.strip() for item in d["checklist"])
    previous_end = 0.0
    for i, seg in enumerate(d["script"]):
        assert list(seg) == SEGMENT_KEYS
        assert seg["segment"] == i + 1
        assert seg["startSecond"] == pytest.approx(previous_end)
        assert seg["endSecond"] > seg["startSecond"]
        for key in ("label", "visual", "voiceover", "onScreenText"):
            assert isinstance(seg[key], str) and seg[key].strip(), (i, key)
        previous_end = seg["endSecond"]
    json.dumps(d)  # plain JSON, ready for the API response


# -- offline engine --------------------------------------------------------------------------


async def test_offline_engine_fills_every_field_from_the_source() -> None:
    remix = await OfflineRemixEngine().remix(pasta())
    assert_contract_shape(remix)
    assert remix.engine == OFFLINE_ENGINE_NAME == "sors-offline-1"
    d = remix.model_dump()
    # one segment per scene, with the scenes' timing
    assert [(s["startSecond"], s["endSecond"]) for s in d["script"]] == [
        (0.0, 2.2), (2.2, 6.1), (6.1, 12.6), (12.6, 18.4), (18.4, 24.0)
    ]  # fmt: skip
    hook, *_, last = d["script"]
    assert hook["label"].startswith("Hook")
    assert "home espresso" in hook["voiceover"].lower()
    assert "home espresso" in hook["onScreenText"].lower()
    assert hook["voiceover"].startswith("Stop")  # the hook pattern survives
    assert "#f4e1c1" in hook["visual"]  # the scene's palette
    assert last["label"] == "Call to action"  # the source ends with "Follow for more…"
    # the lines are written for the niche: nothing of the source's subject is left
    assert "pasta" not in json.dumps(d).lower() and "water" not in json.dumps(d).lower()
    assert "writes its lines for home espresso" in d["description"]
    assert "home espresso" in d["title"].lower()
    assert "@chef.lu" in d["description"] and "1.8M" in d["description"]
    checklist = " ".join(d["checklist"])
    assert "first 2 seconds" in checklist
    assert "On-screen text" in checklist
    assert "24 s" in checklist  # length from the source
    assert "4.1×" in checklist  # the outlier score
    assert "TikTok" in checklist  # posting notes for the content type


async def test_offline_engine_is_deterministic() -> None:
    engine = OfflineRemixEngine()
    first = (await engine.remix(pasta(tone="calm"))).model_dump()
    second = (await OfflineRemixEngine().remix(pasta(tone="calm"))).model_dump()
    assert first == second


async def test_offline_script_follows_the_inputs() -> None:
    engine = OfflineRemixEngine()
    base = (await engine.remix(pasta())).model_dump()
    other_niche = (await engine.remix(pasta(target_niche="budget travel in Japan"))).model_dump()
    other_talk = (
        await engine.remix(
            pasta(
                caption="Squat fix #squats #fitness",
                transcript_segments=fitness_segments(),
                transcript_text=" ".join(s["text"] for s in fitness_segments()),
                scenes=[],
                duration_seconds=20.0,
            )
        )
    ).model_dump()

    assert other_niche["script"] != base["script"]
    assert "budget travel" in other_niche["script"][0]["voiceover"].lower()
    assert other_talk["script"] != base["script"]
    voiceovers = [s["voiceover"] for s in other_talk["script"]]
    assert voiceovers[0].endswith("?")  # question hook kept
    assert other_talk["script"][0]["label"] == "Hook (question)"
    said = " ".join(voiceovers).lower()
    assert not any(word in said for word in ("squat", "hip", "knee", "leg"))
    assert voiceovers[-1] == "Save this for later."  # the source's kind of ask
    # without scenes, one segment per transcript chunk, timed by the transcript
    assert [s["startSecond"] for s in other_talk["script"]] == [0.0, 3.0, 9.0, 15.0]
    assert other_talk["script"][-1]["endSecond"] == 20.0


async def test_offline_timing_follows_the_scenes() -> None:
    scenes = [
        {"index": 0, "start": 0.0, "end": 1.2, "on_screen_text": "wait for it", "dominant_colors": []},
        {"index": 1, "start": 1.2, "end": 7.5, "on_screen_text": "", "dominant_colors": []},
        {"index": 2, "start": 7.5, "end": 9.0, "on_screen_text": "", "dominant_colors": []},
    ]  # fmt: skip
    remix = await OfflineRemixEngine().remix(pasta(scenes=scenes, duration_seconds=9.0))
    timing = [(s.startSecond, s.endSecond) for s in remix.script]
    assert timing == [(0.0, 1.2), (1.2, 7.5), (7.5, 9.0)]
    assert "Quick cut (1.2 s)" in remix.script[0].visual
    assert "source scene 2" in remix.script[1].visual
    # speech lands in the scene during which it is spoken: the ask, said at 19 s, in the last
    assert remix.script[2].label == "Call to action"
    assert remix.script[2].voiceover == "Follow for more home espresso tips."


async def test_offline_many_scenes_are_merged_and_stay_contiguous() -> None:
    scenes = [
        {"index": i, "start": i * 0.5, "end": (i + 1) * 0.5, "on_screen_text": f"tip {i}",
         "dominant_colors": []}
        for i in range(40)
    ]  # fmt: skip
    remix = await OfflineRemixEngine().remix(pasta(scenes=scenes, duration_seconds=20.0))
    assert_contract_shape(remix)
    assert len(remix.script) == 12
    assert remix.script[-1].endSecond == 20.0


@pytest.mark.parametrize(
    ("platform", "content_type", "expect"),
    [("tiktok", "slideshow", "slideshow"), ("instagram", "carousel", "carousel"),
     ("youtube", "short", "YouTube Short"), ("instagram", "reel", "Reel")],
)  # fmt: skip
async def test_offline_posting_notes_follow_the_content_type(
    platform: str, content_type: str, expect: str
) -> None:
    inp = pasta(
        platform=platform,
        content_type=content_type,
        transcript_segments=[],
        scenes=[],
        duration_seconds=None,
        transcript_text="3 pasta shapes you never tried. Orzo. Farfalle. Follow for part 2.",
    )
    remix = await OfflineRemixEngine().remix(inp)
    assert_contract_shape(remix)
    assert any(expect in item for item in remix.checklist)


async def test_offline_caption_only_and_tone() -> None:
    inp = pasta(
        content_type="image",
        platform="instagram",
        transcript_text=None,
        transcript_segments=[],
        scenes=[],
        duration_seconds=None,
        caption="My pasta night routine! Fresh pasta every Sunday. #pasta",
        tone="calm and professional",
    )
    remix = await OfflineRemixEngine().remix(inp)
    assert_contract_shape(remix)
    assert "home espresso" in remix.title.lower()
    assert "!" not in remix.title
    assert any("calm and professional" in item for item in remix.checklist)


async def test_offline_without_material_is_insufficient() -> None:
    inp = pasta(caption="  ", transcript_text=None, transcript_segments=[], scenes=[])
    with pytest.raises(RemixError) as err:
        await OfflineRemixEngine().remix(inp)
    assert err.value.code == "remix_input_insufficient"
    assert not err.value.retryable


# -- the Remix model -------------------------------------------------------------------------


def test_model_rejects_broken_timelines() -> None:
    parse_draft(json.dumps(valid_remix_json()))
    gap = valid_remix_json()
    gap["script"][1]["startSecond"] = 5
    backwards = valid_remix_json()
    backwards["script"][2]["endSecond"] = 11
    few = valid_remix_json(checklist=["one", "two"])
    empty = valid_remix_json()
    empty["script"][0]["voiceover"] = "   "
    for bad in (gap, backwards, few, empty):
        with pytest.raises(ValueError):
            RemixDraft.model_validate(bad)


def test_parse_draft_tolerates_fences_and_numbering() -> None:
    data = valid_remix_json()
    data["script"][2]["segment"] = 7
    draft = parse_draft("```json\n" + json.dumps({"remix": data}) + "\n```")
    assert [s.segment for s in draft.script] == [1, 2, 3]


# -- LLM engine over HTTP --------------------------------------------------------------------


def llm(server_url: str, **kw: Any) -> LLMRemixEngine:
    kw.setdefault("max_retries", 0)
    return LLMRemixEngine(server_url, "fake-llm", api_key="sk-test-secret", timeout=5, **kw)


async def test_llm_valid_answer(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), model="fake-llm-2026-05-01"))
    remix = await llm(fake_llm.base_url).remix(pasta(tone="playful"))
    assert_contract_shape(remix)
    assert remix.engine == "fake-llm-2026-05-01"  # what the server says answered
    assert remix.script[1].voiceover == "Grind finer and dose 18 grams."

    [request] = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "fake-llm"
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.headers["authorization"] == "Bearer sk-test-secret"
    prompt = request.prompt
    assert "Most people drown their pasta in water." in prompt  # the transcript
    assert "home espresso for busy parents" in prompt  # the niche
    assert "playful" in prompt
    assert "STOP boiling pasta like this" in prompt  # the scenes
    assert '"onScreenText"' in prompt  # the schema
    assert request.body["messages"][0]["role"] == "system"


async def test_llm_engine_name_falls_back_to_configured_model(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), model=" "))
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.engine == "fake-llm"


async def test_llm_retries_malformed_answers(fake_llm: FakeOpenAI) -> None:
    missing_script = valid_remix_json()
    del missing_script["script"]
    fake_llm.queue(
        text_answer("Sure! Here is your remix: title = espresso"),
        json_answer(missing_script),
        json_answer(valid_remix_json()),
    )
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.title == "Stop brewing your espresso like this"
    assert len(fake_llm.requests) == 3
    # the retries tell the model what was wrong with its last answer
    third = fake_llm.requests[2].body["messages"]
    assert third[-1]["role"] == "user" and "script" in third[-1]["content"]
    assert "not valid JSON" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_llm_bad_output_after_three_attempts(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(
        text_answer("not json at all"),
        json_answer({"title": "only a title"}),
        text_answer("{broken"),
        json_answer(valid_remix_json()),  # never asked for
    )
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url).remix(pasta())
    assert err.value.code == "llm_bad_output"
    assert not err.value.retryable
    assert len(fake_llm.requests) == 3


async def test_llm_http_500_is_unavailable(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(http_error(500), http_error(502), http_error(503))
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url, max_retries=2).remix(pasta())
    assert err.value.code == "llm_unavailable"
    assert err.value.retryable
    assert "HTTP 503" in err.value.message
    assert len(fake_llm.requests) == 3  # the SDK's own retries, then we give up
    assert "sk-test-secret" not in str(err.value)


async def test_llm_transient_500_is_retried_by_the_sdk(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(http_error(500), json_answer(valid_remix_json()))
    remix = await llm(fake_llm.base_url, max_retries=1).remix(pasta())
    assert remix.engine == "fake-llm"
    assert len(fake_llm.requests) == 2


async def test_llm_server_down_is_unavailable() -> None:
    with pytest.raises(RemixError) as err:
        await llm(closed_port_url()).remix(pasta())
    assert err.value.code == "llm_unavailable"


async def test_llm_timeout_is_unavailable(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), delay=1.5))
    engine = LLMRemixEngine(fake_llm.base_url, "fake-llm", timeout=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(RemixError) as err:
        await engine.remix(pasta())
    assert err.value.code == "llm_unavailable"
    assert time.monotonic() - started < 1.4


async def test_llm_without_json_mode_support(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(
        http_error(400, "response_format json_object is not supported"),
        json_answer(valid_remix_json()),
    )
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.title
    first, second = fake_llm.requests
    assert "response_format" in first.body and "response_format" not in second.body


async def test_llm_without_material_makes_no_request(fake_llm: FakeOpenAI) -> None:
    inp = pasta(caption="", transcript_text="", transcript_segments=[], scenes=[])
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url).remix(inp)
    assert err.value.code == "remix_input_insufficient"
    assert fake_llm.requests == []


async def test_llm_without_key_sends_no_environment_key(
    fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    fake_llm.queue(json_answer(valid_remix_json()))
    await LLMRemixEngine(fake_llm.base_url, "llama3.2", max_retries=0).remix(pasta())
    assert "sk-from-the-environment" not in fake_llm.requests[0].headers["authorization"]


# -- selection -------------------------------------------------------------------------------


def test_get_engine_picks_by_settings() -> None:
    assert isinstance(get_engine(Settings()), OfflineRemixEngine)
    assert isinstance(
        get_engine(Settings(llm_base_url="http://127.0.0.1:1/v1")), OfflineRemixEngine
    )
    engine = get_engine(
        Settings(llm_base_url="http://127.0.0.1:11434", llm_model="qwen2.5", llm_api_key="k-1")
    )
    assert isinstance(engine, LLMRemixEngine)
    assert isinstance(engine, RemixEngine)
    assert engine.model == "qwen2.5" and engine.base_url == "http://127.0.0.1:11434/v1"
    assert "k-1" not in repr(engine)


def test_base_url_normalisation() -> None:
    assert normalize_base_url("http://h:8080/") == "http://h:8080/v1"
    assert normalize_base_url("https://api.openai.com/v1/") == "https://api.openai.com/v1"
    assert normalize_base_url("http://h/openai/v1") == "http://h/openai/v1"


def test_remix_input_is_a_plain_dataclass() -> None:
    assert dataclasses.is_dataclass(RemixInput)
    with pytest.raises(TypeError):
        RemixInput("tiktok", "video")  # type: ignore[call-arg, misc]  # keyword-only
