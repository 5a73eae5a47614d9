"""Transcripts and visual analyses of a post's media: the records (their errors are in
`sors.enrichment.errors`).

The dataclasses serialise (`to_dict`) to exactly the `transcript` and `visual_analysis`
shapes of docs/API.md (the post record), minus `created_at`, which the storage layer adds;
the stored shapes are the TypedDicts below.

Everything here is synchronous and CPU-bound; the job layer runs it in a worker thread.
The heavy modules (faster-whisper, RapidOCR, OpenCV, PySceneDetect) are imported lazily, so
importing the records does not load any model or native library.

Conventions for image posts (slideshows, carousels, single images): they have no timeline,
so `start`/`end` count slide positions instead of seconds — slide i (0-based) spans
[i, i + 1) — in both the transcript segments and the scenes, and `avg_scene_seconds` is
null. Slides without any readable text get no transcript segment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from sors.enrichment.errors import MediaMissing

TranscriptSource = Literal["speech", "on_screen_text"]


class SegmentData(TypedDict):
    start: float
    end: float
    text: str
    # Speech only: how sure the model was of the words (exp of its mean log-probability,
    # 0-1); kept for the analyses' hook, not shown in the transcript record.
    confidence: NotRequired[float]


class TranscriptData(TypedDict):
    text: str
    language: str | None
    source: TranscriptSource
    segments: list[SegmentData]


class SceneData(TypedDict):
    index: int
    start: float
    end: float
    on_screen_text: str
    dominant_colors: list[str]


class VisualAnalysisData(TypedDict):
    scene_count: int
    avg_scene_seconds: float | None
    scenes: list[SceneData]
    on_screen_text: str


# ---- records -----------------------------------------------------------------------------


def _t(value: float) -> float:
    return round(float(value), 3)


@dataclass(frozen=True, slots=True)
class TranscriptSegment:
    start: float
    end: float
    text: str
    confidence: float | None = None  # speech only (SegmentData)

    def to_dict(self) -> SegmentData:
        out: SegmentData = {"start": _t(self.start), "end": _t(self.end), "text": self.text}
        if self.confidence is not None:
            out["confidence"] = round(float(self.confidence), 3)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TranscriptSegment:
        """A stored segment (`to_dict`'s JSON, as the catalog keeps it)."""
        conf = raw.get("confidence")
        return cls(float(raw["start"]), float(raw["end"]), str(raw["text"]),
                   None if conf is None else float(conf))


@dataclass(frozen=True, slots=True)
class Transcript:
    text: str
    # ISO 639-1 code of the spoken language; None when unknown (OCR does not detect it).
    language: str | None
    source: TranscriptSource
    segments: list[TranscriptSegment] = field(default_factory=list)

    def to_dict(self) -> TranscriptData:
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

    def to_dict(self) -> SceneData:
        return {
            "index": self.index,
            "start": _t(self.start),
            "end": _t(self.end),
            "on_screen_text": self.on_screen_text,
            "dominant_colors": list(self.dominant_colors),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Scene:
        """A stored scene (`to_dict`'s JSON, as the catalog keeps it)."""
        return cls(
            int(raw.get("index") or 0), float(raw["start"]), float(raw["end"]),
            str(raw.get("on_screen_text") or ""),
            [str(c) for c in raw.get("dominant_colors") or ()],
        )


@dataclass(frozen=True, slots=True)
class VisualAnalysis:
    scene_count: int
    avg_scene_seconds: float | None  # None for image posts, which have no timeline
    scenes: list[Scene]
    on_screen_text: str  # every distinct line of on-screen text, in order of appearance

    def to_dict(self) -> VisualAnalysisData:
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
