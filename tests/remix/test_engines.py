"""Remix engines: the offline engine on real inputs, and which engine the settings pick."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sors.config import Settings
from sors.remix.engine_llm import normalize_base_url, parse_draft
from sors.remix.engines import (
    OFFLINE_ENGINE_NAME,
    LLMRemixEngine,
    OfflineRemixEngine,
    RemixEngine,
    RemixError,
    RemixInput,
    get_engine,
)
from sors.remix.schemas_remix import RemixDraft

from .support import (
    assert_contract_shape,
    fitness_segments,
    pasta,
    valid_remix_json,
)


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
        {"index": 0, "start": 0.0, "end": 1.2, "on_screen_text": "wait for it",
         "dominant_colors": []},
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
