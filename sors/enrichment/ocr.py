"""On-screen text with RapidOCR (PP-OCRv4 ONNX models shipped inside the wheel; no network).

One engine per process, built on first use: loading the three ONNX models takes about a
second, reading a frame tens of milliseconds after that.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from sors.enrichment.analysis import (
    require_file,
)
from sors.enrichment.errors import (
    ModelUnavailable,
    TranscriptionFailed,
    UnsupportedMedia,
)

MIN_SCORE = 0.6  # recognitions below this confidence are mostly noise on textures and faces
# Scale images so the longer side is at most this for detection (the default scales the
# *shorter* side up to 736, which makes a portrait frame twice the pixels and no better read).
DET_MAX_SIDE = 960

_lock = threading.Lock()  # onnxruntime sessions are thread-safe, the engine's glue is not


@dataclass(frozen=True, slots=True)
class TextBox:
    text: str
    score: float
    left: float
    top: float
    right: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


_load_lock = threading.Lock()


def get_engine() -> Any:
    """The process-wide RapidOCR engine."""
    with _load_lock:
        return _engine()


@cache
def _engine() -> Any:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelUnavailable(f"rapidocr-onnxruntime is not installed: {exc}") from exc
    try:
        return RapidOCR(det_limit_type="max", det_limit_side_len=DET_MAX_SIDE)
    except Exception as exc:  # pragma: no cover - corrupt model files
        raise ModelUnavailable(f"the OCR models could not be loaded: {exc}") from exc


def read_boxes(image: str | Path | np.ndarray) -> list[TextBox]:
    """Every text box found in an image file or a BGR frame (as OpenCV returns them)."""
    if isinstance(image, np.ndarray):
        source: Any = image
    else:
        source = str(require_file(image))
    engine = get_engine()
    try:
        with _lock:
            # No angle classifier: captions on social media are upright, and on big, sparse
            # text it flips correct words upside down ("soup" read as "dnos").
            result, _ = engine(source, use_cls=False)
    except Exception as exc:
        if type(exc).__name__ == "LoadImageError":
            raise UnsupportedMedia(f"not a readable image: {image}") from exc
        raise TranscriptionFailed(f"OCR failed: {exc}") from exc
    boxes: list[TextBox] = []
    for points, text, score in result or []:
        text = " ".join(str(text).split())
        if not text or float(score) < MIN_SCORE:
            continue
        xs = [float(p[0]) for p in points]
        ys = [float(p[1]) for p in points]
        boxes.append(TextBox(text, float(score), min(xs), min(ys), max(xs), max(ys)))
    return boxes


def reading_order(boxes: list[TextBox]) -> list[list[TextBox]]:
    """Boxes grouped into lines (top to bottom), each line's boxes left to right.

    Two boxes share a line when their vertical middles are closer than half the smaller
    box's height; the detector often splits one visual line into several boxes.
    """
    lines: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: (b.middle, b.left)):
        if lines:
            last = lines[-1]
            anchor = sum(b.middle for b in last) / len(last)
            tolerance = min(box.height, min(b.height for b in last)) / 2
            if abs(box.middle - anchor) <= tolerance:
                last.append(box)
                continue
        lines.append([box])
    return [sorted(line, key=lambda b: b.left) for line in lines]


def read_lines(image: str | Path | np.ndarray) -> list[str]:
    """The text of an image, one string per visual line, in reading order."""
    return [" ".join(b.text for b in line) for line in reading_order(read_boxes(image))]


def read_text(image: str | Path | np.ndarray) -> str:
    """The text of an image as one string (lines joined by spaces)."""
    return " ".join(read_lines(image))
