"""Features computed from real rendered media: speech recognised by faster-whisper, scenes
found by shot detection, slides read by OCR."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sors.analyses.features import HOOK_SECONDS, PostFeatures, PostMaterial, post_features
from sors.enrichment.analysis import Scene, Transcript, TranscriptSegment, VisualAnalysis
from tests.enrichment.api_support import words

from .conftest import SCENES, SLIDES, Analysed

PUBLISHED = datetime(2026, 11, 3, 18, 30, tzinfo=UTC)  # a Tuesday


def video_material(transcript: Transcript, visual: VisualAnalysis, duration: float) -> PostMaterial:
    # As the catalog keeps them (rounded), and reads them back.
    t, v = transcript.to_dict(), visual.to_dict()
    return PostMaterial(
        content_type="video",
        caption="Morning routine ideas? Save this and try it #morning #routine",
        published_at=PUBLISHED,
        duration_seconds=duration,
        hashtags=["morning", "routine"],
        transcript_source=t["source"],
        segments=[TranscriptSegment.from_json(s) for s in t["segments"]],
        scenes=[Scene.from_json(s) for s in v["scenes"]],
        has_media=True,
    )


def test_the_hook_is_the_first_seconds_of_the_rendered_speech(analysed_video: Analysed) -> None:
    duration = analysed_video.media.duration_seconds or 0.0
    f = post_features(video_material(analysed_video.transcript, analysed_video.visual, duration))
    hook = f.hook
    assert hook is not None and hook.spokenText and hook.onScreenText
    assert hook.startSecond is not None and hook.endSecond is not None
    assert words(hook.spokenText) == words(SCENES[0])
    # Heard and shown alike: the typed line is the hook, and the speech supports it.
    assert hook.text == hook.onScreenText and hook.source == "on_screen_text"
    assert "speech" in hook.supportedBy
    assert words(hook.onScreenText) == words(SCENES[0])  # the first card's caption
    assert hook.type == "question" and f.values["hookType"] == "question"
    assert 0.0 <= hook.startSecond < HOOK_SECONDS < hook.endSecond + HOOK_SECONDS
    assert f.values["hookWords"] == len(words(SCENES[0]))
    # Nothing said after the first scene leaks into the hook.
    assert not set(words(SCENES[1])) - set(words(SCENES[0])) & set(words(hook.text))


def test_cuts_match_the_rendered_scenes(analysed_video: Analysed) -> None:
    duration = analysed_video.media.duration_seconds or 0.0
    f = post_features(video_material(analysed_video.transcript, analysed_video.visual, duration))
    v = f.values
    scenes = analysed_video.visual.scenes
    assert len(scenes) == len(SCENES)
    assert v["cutsPerMinute"] == pytest.approx((len(SCENES) - 1) / duration * 60, abs=0.01)
    assert v["timeToFirstCut"] == pytest.approx(scenes[1].start, abs=0.01)
    # The first card lasts as long as its sentence is spoken (plus the renderer's pauses).
    assert hook_end(f) <= v["timeToFirstCut"] + 0.5
    spoken = sum(len(words(s)) for s in SCENES)
    assert 80 <= v["speakingRate"] <= 260 and spoken
    assert v["durationSeconds"] == duration and v["format"] == "video"
    assert v["callToAction"] is True and v["captionQuestion"] is True
    assert v["hashtagCount"] == 2 and v["publishHour"] == 18 and v["publishWeekday"] == "tuesday"
    assert v["slideCount"] is None and v["textDensity"] is None


def hook_end(f: PostFeatures) -> float:
    assert f.hook is not None and f.hook.endSecond is not None
    return f.hook.endSecond


def test_slides_count_and_text_density(analysed_slides: VisualAnalysis) -> None:
    v = analysed_slides.to_dict()
    m = PostMaterial(
        content_type="slideshow",
        caption="Cheap meals",
        published_at=PUBLISHED,
        transcript_source="on_screen_text",
        segments=[TranscriptSegment(s["start"], s["end"], s["on_screen_text"])
                  for s in v["scenes"]],
        scenes=[Scene.from_json(s) for s in v["scenes"]],
        has_media=True,
    )
    f = post_features(m)
    assert f.values["slideCount"] == len(SLIDES)
    expected = sum(len(words(s)) for s in SLIDES) / len(SLIDES)
    assert f.values["textDensity"] == pytest.approx(expected, abs=1.0)
    assert f.hook is not None and words(f.hook.text) == words(SLIDES[0])
    assert f.hook.type == "number_list"
    assert f.values["cutsPerMinute"] is None and f.values["speakingRate"] is None
