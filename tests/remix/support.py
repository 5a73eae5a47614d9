"""Remix inputs from JSON-shaped transcript segments and scenes (as the catalog keeps them), a
source post to remix, and the check of the contract's remix shape."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from sors.enrichment.analysis import Scene, TranscriptSegment
from sors.remix.engines import Remix, RemixInput


def remix_input(
    *, transcript_segments: Sequence[Mapping[str, Any]] = (),
    scenes: Sequence[Mapping[str, Any]] = (), **values: Any,
) -> RemixInput:
    return RemixInput(
        transcript_segments=[TranscriptSegment.from_json(s) for s in transcript_segments],
        scenes=[Scene.from_json(s) for s in scenes],
        **values,
    )


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
