"""Media rendered once per test session for the analyses tests (no database)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sors.enrichment import pipeline
from sors.enrichment.analysis import Transcript, VisualAnalysis
from sors.platforms.base import MediaFile
from sors.platforms.sim.render import render_slides, render_video
from tests.remix.conftest import _fake_openai_server, fake_llm  # noqa: F401
from tests.webhooks.conftest import loopback_allowed, receiver  # noqa: F401

# A question hook, then three tips and an outro: five scenes, four cuts.
SCENES = [
    "Did you know this about morning routines?",
    "First, drink a full glass of water before coffee.",
    "Second, write down one goal for the day.",
    "Third, take a short walk outside in the sun.",
    "Follow for more ideas like this.",
]
SLIDES = [
    "Five cheap meals for busy students",
    "Lentil soup with carrots and cumin",
    "Egg fried rice with frozen peas",
]


@dataclass(frozen=True)
class Analysed:
    media: MediaFile
    transcript: Transcript
    visual: VisualAnalysis


@pytest.fixture(scope="session")
def analysed_video(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    media = render_video(SCENES, tmp_path_factory.mktemp("video") / "post.mp4")
    return Analysed(
        media, pipeline.transcribe_video(media.path), pipeline.analyze_video(media.path))


@pytest.fixture(scope="session")
def analysed_slides(tmp_path_factory: pytest.TempPathFactory) -> VisualAnalysis:
    files = render_slides(SLIDES, tmp_path_factory.mktemp("slides"))
    return pipeline.analyze_slides([f.path for f in files])
