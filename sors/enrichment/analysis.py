"""Transcripts and visual analyses of a post's media: the records and the errors.

The dataclasses serialise (`to_dict`) to exactly the `transcript` and `visual_analysis`
shapes of docs/API.md (the post record), minus `created_at`, which the storage layer adds.

Everything here is synchronous and CPU-bound; the job layer runs it in a worker thread.
The heavy modules (faster-whisper, RapidOCR, OpenCV, PySceneDetect) are imported lazily, so
importing the records does not load any model or native library.

Conventions for image posts (slideshows, carousels, single images): they have no timeline,
so `start`/`end` count slide positions instead of seconds — slide i (0-based) spans
[i, i + 1) — in both the transcript segments and the scenes, and `avg_scene_seconds` is
null. Slides without any readable text get no transcript segment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

TranscriptSource = Literal["speech", "on_screen_text"]


# ---- errors ------------------------------------------------------------------------------


class EnrichmentError(Exception):
    """Base of every enrichment failure; `code` is what a failed job reports."""

    code = "enrichment_failed"
    retryable = False

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class _CodedError(EnrichmentError):
    code = "enrichment_failed"

    def __init__(self, message: str) -> None:
        super().__init__(type(self).code, message)


class MediaMissing(_CodedError):
    """The media file to analyse does not exist (or is empty)."""

    code = "media_missing"


class ModelUnavailable(_CodedError):
    """A model could not be loaded (not installed, bad path, or a download failed)."""

    code = "model_unavailable"


class UnsupportedMedia(_CodedError):
    """The file is not a video or image we can decode."""

    code = "unsupported_media"


class TranscriptionFailed(_CodedError):
    """The speech model or OCR failed on a decodable file."""

    code = "transcription_failed"


class AnalysisFailed(_CodedError):
    """Shot detection or keyframe extraction failed on a decodable file."""

    code = "analysis_failed"


# ---- records -----------------------------------------------------------------------------


def _t(value: float) -> float:
    return round(float(value), 3)


@dataclass(frozen=True, slots=True)
class TranscriptSegment:
    start: float
    end: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": _t(self.start), "end": _t(self.end), "text": self.text}


@dataclass(frozen=True, slots=True)
class Transcript:
    text: str
    # ISO 639-1 code of the spoken language; None when unknown (OCR does not detect it).
    language: str | None
    source: TranscriptSource
    segments: list[TranscriptSegment] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "language": self.language,
            "source": self.source,
            "segments": [s.to_dict() for s in self.segments],
        }


@dataclass(frozen=True, slots=True)
class Scene:
    index: int
    start: float
    end: float
    on_screen_text: str
    dominant_colors: list[str] = field(default_factory=list)  # "#rrggbb", most frequent first

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "start": _t(self.start),
            "end": _t(self.end),
            "on_screen_text": self.on_screen_text,
            "dominant_colors": list(self.dominant_colors),
        }


@dataclass(frozen=True, slots=True)
class VisualAnalysis:
    scene_count: int
    avg_scene_seconds: float | None  # None for image posts, which have no timeline
    scenes: list[Scene]
    on_screen_text: str  # every distinct line of on-screen text, in order of appearance

    def to_dict(self) -> dict[str, Any]:
        return {
            "scene_count": self.scene_count,
            "avg_scene_seconds": (
                None if self.avg_scene_seconds is None else _t(self.avg_scene_seconds)
            ),
            "scenes": [s.to_dict() for s in self.scenes],
            "on_screen_text": self.on_screen_text,
        }


def merge_on_screen_text(texts: Iterable[str]) -> str:
    """Distinct non-empty texts in first-seen order, one per line (case-insensitive dedupe)."""
    seen: set[str] = set()
    out: list[str] = []
    for text in texts:
        key = " ".join(text.split()).casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(" ".join(text.split()))
    return "\n".join(out)


# ---- entry points ------------------------------------------------------------------------


def require_file(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        raise MediaMissing(f"media file not found or empty: {p}")
    return p
