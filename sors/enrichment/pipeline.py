"""The entry points that turn media into transcripts and visual analyses: speech-to-text for
videos (on-screen text when nobody speaks), OCR for image posts, shot detection for scenes.
Synchronous and CPU-bound; the job layer runs them in a worker thread. The heavy modules are
imported lazily, so importing this module loads no model or native library."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sors.enrichment.analysis import (
    Transcript,
    TranscriptSegment,
    VisualAnalysis,
    require_file,
)
from sors.enrichment.errors import (
    MediaMissing,
)

if TYPE_CHECKING:
    from sors.enrichment.speech import SpeechOptions


def transcribe_video(path: str | Path, options: SpeechOptions | None = None) -> Transcript:
    """Speech-to-text of a video's (or audio file's) soundtrack.

    `options` are the `SORS_WHISPER_*` settings (`SpeechOptions.from_settings`); None: the
    defaults with the offline tiny.en model. A video without an audio track, or whose speech
    yields no words, falls back to the text shown on screen (source "on_screen_text").
    """
    from sors.enrichment import speech

    p = require_file(path)
    transcript = speech.transcribe(p, options)
    if transcript is not None and transcript.text:
        return transcript
    from sors.enrichment import scenes

    analysis = scenes.analyze_video(p) if scenes.has_video_stream(p) else None
    if analysis is not None and analysis.on_screen_text:
        segments = [
            TranscriptSegment(s.start, s.end, s.on_screen_text)
            for s in analysis.scenes
            if s.on_screen_text
        ]
        return Transcript(
            text=" ".join(seg.text for seg in segments),
            language=None,
            source="on_screen_text",
            segments=segments,
        )
    if transcript is not None:
        return transcript
    return Transcript(text="", language=None, source="speech", segments=[])


def transcribe_slides(image_paths: Sequence[str | Path]) -> Transcript:
    """OCR of each slide, in order; one segment per slide with text (start=i, end=i+1)."""
    from sors.enrichment import ocr

    if not image_paths:
        raise MediaMissing("no images to transcribe")
    paths = [require_file(p) for p in image_paths]
    segments: list[TranscriptSegment] = []
    for i, p in enumerate(paths):
        text = " ".join(ocr.read_lines(p))
        if text:
            segments.append(TranscriptSegment(float(i), float(i + 1), text))
    return Transcript(
        text="\n".join(s.text for s in segments),
        language=None,
        source="on_screen_text",
        segments=segments,
    )


def analyze_video(path: str | Path) -> VisualAnalysis:
    """Shots, a keyframe's text and dominant colours per shot."""
    from sors.enrichment import scenes

    return scenes.analyze_video(require_file(path))


def analyze_slides(image_paths: Sequence[str | Path]) -> VisualAnalysis:
    """One scene per slide (start=i, end=i+1), with its text and dominant colours."""
    from sors.enrichment import scenes

    if not image_paths:
        raise MediaMissing("no images to analyse")
    return scenes.analyze_images([require_file(p) for p in image_paths])
