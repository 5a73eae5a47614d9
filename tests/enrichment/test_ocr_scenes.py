"""Shot detection, keyframe OCR and colours on rendered media (real models, no mocks)."""

from __future__ import annotations

import itertools
import subprocess
import time
from pathlib import Path

import cv2
import pytest

from sors.enrichment import ocr, scenes
from sors.enrichment.analysis import (
    VisualAnalysis,
)
from sors.enrichment.errors import (
    UnsupportedMedia,
)
from sors.enrichment.pipeline import (
    analyze_slides,
    analyze_video,
    transcribe_slides,
)
from sors.platforms.base import MediaFile
from sors.platforms.sim.render import scene_colors

from .conftest import SCENES, SLIDES, Rendered, words


def _recall(reference: str, found: str) -> float:
    """Share of the reference's words that were recognised."""
    wanted, got = words(reference), set(words(found))
    return sum(w in got for w in wanted) / len(wanted)


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def _distance(a: str, b: str) -> float:
    return sum((x - y) ** 2 for x, y in zip(_rgb(a), _rgb(b), strict=True)) ** 0.5


@pytest.fixture(scope="session")
def video_analysis(rendered_video: Rendered) -> VisualAnalysis:
    ocr.get_engine()
    started = time.perf_counter()
    result = analyze_video(rendered_video.media.path)
    print(f"\nanalyze_video: {time.perf_counter() - started:.2f} s")
    return result


def test_finds_one_shot_per_scene(video_analysis: VisualAnalysis, rendered_video: Rendered) -> None:
    assert abs(video_analysis.scene_count - len(SCENES)) <= 1
    shots = video_analysis.scenes
    assert shots[0].start == 0
    assert all(a.end == pytest.approx(b.start) for a, b in itertools.pairwise(shots))
    duration = rendered_video.media.duration_seconds or 0
    assert shots[-1].end == pytest.approx(duration, abs=0.2)
    assert video_analysis.avg_scene_seconds == pytest.approx(duration / len(shots), abs=0.1)


def test_keyframe_ocr_reads_each_scene(video_analysis: VisualAnalysis) -> None:
    assert video_analysis.scene_count == len(SCENES)  # exact on synthetic cuts
    for scene, sentence in zip(video_analysis.scenes, SCENES, strict=True):
        assert _recall(sentence, scene.on_screen_text) >= 0.8, scene.on_screen_text
    assert _recall(" ".join(SCENES), video_analysis.on_screen_text) >= 0.9


def test_dominant_colors_include_the_background(video_analysis: VisualAnalysis) -> None:
    for scene, background in zip(video_analysis.scenes, scene_colors(len(SCENES)), strict=True):
        assert 1 <= len(scene.dominant_colors) <= 3
        assert all(c.startswith("#") and len(c) == 7 for c in scene.dominant_colors)
        # The background fills most of the frame: it comes first (H.264 shifts it a little).
        assert _distance(scene.dominant_colors[0], background) < 30, scene.dominant_colors


def test_visual_analysis_serialises_to_the_contract_shape(video_analysis: VisualAnalysis) -> None:
    data = video_analysis.to_dict()
    assert set(data) == {"scene_count", "avg_scene_seconds", "scenes", "on_screen_text"}
    assert set(data["scenes"][0]) == {"index", "start", "end", "on_screen_text", "dominant_colors"}
    assert [s["index"] for s in data["scenes"]] == list(range(data["scene_count"]))


def test_slides_are_transcribed_by_ocr(rendered_slides: list[MediaFile]) -> None:
    transcript = transcribe_slides([m.path for m in rendered_slides])
    assert transcript.source == "on_screen_text"
    assert [(s.start, s.end) for s in transcript.segments] == [(0, 1), (1, 2), (2, 3)]
    for segment, slide in zip(transcript.segments, SLIDES, strict=True):
        assert _recall(slide, segment.text) >= 0.8, segment.text
    assert transcript.text.count("\n") == len(SLIDES) - 1


def test_slides_are_analysed_one_scene_each(rendered_slides: list[MediaFile]) -> None:
    result = analyze_slides([m.path for m in rendered_slides])
    assert result.scene_count == len(SLIDES)
    assert result.avg_scene_seconds is None
    backgrounds = scene_colors(len(SLIDES))
    for scene, background in zip(result.scenes, backgrounds, strict=True):
        assert _distance(scene.dominant_colors[0], background) < 12  # JPEG, no chroma drift
    assert _recall(" ".join(SLIDES), result.on_screen_text) >= 0.9


def test_ocr_reads_a_numpy_frame_in_reading_order(rendered_slides: list[MediaFile]) -> None:
    frame = cv2.imread(str(rendered_slides[1].path))
    assert frame is not None
    lines = ocr.read_lines(frame)
    assert words(" ".join(lines)) == words(SLIDES[1])


def test_shot_detection_without_cuts(rendered_slides: list[MediaFile], tmp_path: Path) -> None:
    still = tmp_path / "still.mp4"
    subprocess.run(
        [
            *("ffmpeg", "-nostdin", "-loglevel", "error", "-loop", "1", "-framerate", "10"),
            *("-t", "2", "-i", str(rendered_slides[0].path), "-pix_fmt", "yuv420p", str(still)),
        ],
        check=True,
    )
    shots = scenes.detect_shots(still)
    assert len(shots) == 1
    assert shots[0].end == pytest.approx(2.0, abs=0.15)
    # The fallback older PySceneDetect versions need (they return no scene without a cut).
    whole = scenes._whole_video(still)
    assert (whole.start, whole.start_frame) == (0, 0)
    assert whole.end == pytest.approx(2.0, abs=0.15)
    assert whole.end_frame == pytest.approx(20, abs=1)


def test_unreadable_image(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image" * 50)
    with pytest.raises(UnsupportedMedia):
        analyze_slides([junk])
    with pytest.raises(UnsupportedMedia):
        analyze_video(junk)
