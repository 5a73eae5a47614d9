"""Media rendered once per test session, shared by the enrichment tests (no database)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest

from sors.platforms.base import MediaFile
from sors.platforms.sim.render import render_slides, render_video

SCENES = [
    "Three habits changed my mornings forever.",
    "First, drink a full glass of water before coffee.",
    "Second, write down one goal for the day.",
    "Third, take a short walk outside in the sun.",
]
SLIDES = [
    "Five cheap meals for busy students",
    "Lentil soup with carrots and cumin",
    "Egg fried rice with frozen peas",
]


def words(text: str) -> list[str]:
    """Lower-case words without punctuation, for comparing recognised text."""
    return re.findall(r"[a-z0-9']+", text.lower())


@dataclass(frozen=True)
class Rendered:
    media: MediaFile
    seconds: float  # wall time of the render


@pytest.fixture(scope="session")
def rendered_video(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    out = tmp_path_factory.mktemp("video") / "post.mp4"
    started = time.perf_counter()
    media = render_video(SCENES, out)
    return Rendered(media, time.perf_counter() - started)


@pytest.fixture(scope="session")
def rendered_slides(tmp_path_factory: pytest.TempPathFactory) -> list[MediaFile]:
    return render_slides(SLIDES, tmp_path_factory.mktemp("slides"))
