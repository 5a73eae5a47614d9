"""Shots of a video (PySceneDetect), and what each one shows: its text and main colours.

Per shot we take the middle frame as its keyframe, read it with OCR and quantise its colours.
Image posts go through the same keyframe analysis, one "scene" per image.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sors.enrichment import ocr
from sors.enrichment.analysis import (
    Scene,
    VisualAnalysis,
    merge_on_screen_text,
    require_file,
)
from sors.enrichment.errors import (
    AnalysisFailed,
    UnsupportedMedia,
)

CUT_THRESHOLD = 27.0  # ContentDetector's default: a hard cut, not a camera move
MIN_SHOT_FRAMES = 15  # cuts closer together than this are flashes, not shots
COLOR_COUNT = 3
MIN_COLOR_SHARE = 0.01  # colours covering less of the frame are anti-aliasing, not design
_QUANT_SHIFT = 5  # 8 levels per channel: 512 colour bins
_MERGE_DISTANCE = 28.0  # bins whose mean colours are this close are one colour (RGB distance)
_SAMPLE_WIDTH = 96  # frames are shrunk to this width before counting colours


@dataclass(frozen=True, slots=True)
class Shot:
    start: float  # seconds
    end: float
    start_frame: int
    end_frame: int  # exclusive

    @property
    def middle_frame(self) -> int:
        return (self.start_frame + max(self.start_frame + 1, self.end_frame) - 1) // 2


def _seconds(tc: Any) -> float:
    value = getattr(tc, "seconds", None)
    return float(value) if value is not None else float(tc.get_seconds())


def _frame(tc: Any) -> int:
    value = getattr(tc, "frame_num", None)
    return int(value) if value is not None else int(tc.get_frames())


def has_video_stream(path: str | Path) -> bool:
    """True when the file has a video stream whose first frame decodes."""
    import av

    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                return False
            next(container.decode(video=0))
            return True
    except (av.error.FFmpegError, StopIteration, ValueError):
        return False


def _whole_video(path: Path) -> Shot:
    """One shot spanning the file, from the container's duration and frame rate."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = float(stream.average_rate or stream.guessed_rate or 30)
        if stream.duration is not None and stream.time_base is not None:
            seconds = float(stream.duration * stream.time_base)
        elif container.duration is not None:
            seconds = container.duration / av.time_base
        else:
            seconds = (stream.frames or 1) / rate
    return Shot(0.0, seconds, 0, max(1, round(seconds * rate)))


def detect_shots(path: str | Path) -> list[Shot]:
    """The shots of a video, in order, covering it from start to end."""
    from scenedetect import ContentDetector, detect
    from scenedetect.video_stream import VideoOpenFailure

    p = require_file(path)
    if not has_video_stream(p):
        raise UnsupportedMedia(f"not a readable video: {p.name}")
    detector = ContentDetector(threshold=CUT_THRESHOLD, min_scene_len=MIN_SHOT_FRAMES)
    try:
        found = detect(str(p), detector, start_in_scene=True)
    except VideoOpenFailure as exc:
        raise UnsupportedMedia(f"not a readable video: {p.name}") from exc
    except Exception as exc:
        raise AnalysisFailed(f"shot detection failed: {exc}") from exc
    shots = [Shot(_seconds(a), _seconds(b), _frame(a), _frame(b)) for a, b in found]
    if not shots:  # older PySceneDetect returns nothing for a video without cuts
        shots = [_whole_video(p)]
    return shots


def keyframes(path: str | Path, frame_numbers: Sequence[int]) -> dict[int, np.ndarray]:
    """The requested frames (BGR), read in one sequential pass (exact, unlike seeking)."""
    import cv2

    wanted = set(frame_numbers)
    frames: dict[int, np.ndarray] = {}
    cap = cv2.VideoCapture(str(path))
    try:
        last = max(wanted, default=-1)
        index = 0
        while index <= last and cap.grab():
            if index in wanted:
                ok, frame = cap.retrieve()
                if ok:
                    frames[index] = frame
            index += 1
    finally:
        cap.release()
    return frames


def dominant_colors(frame_bgr: np.ndarray, count: int = COLOR_COUNT) -> list[str]:
    """The frame's main colours as "#rrggbb", most area first (colour quantisation)."""
    import cv2

    h, w = frame_bgr.shape[:2]
    if w > _SAMPLE_WIDTH:
        size = (_SAMPLE_WIDTH, max(1, round(h * _SAMPLE_WIDTH / w)))
        frame_bgr = cv2.resize(frame_bgr, size, interpolation=cv2.INTER_NEAREST)
    pixels = frame_bgr.reshape(-1, 3)[:, ::-1].astype(np.int32)  # RGB
    q = pixels >> _QUANT_SHIFT
    bins = (q[:, 0] << 6) | (q[:, 1] << 3) | q[:, 2]
    codes, inverse, counts = np.unique(bins, return_inverse=True, return_counts=True)
    sums = np.zeros((len(codes), 3), dtype=np.float64)
    np.add.at(sums, inverse.ravel(), pixels)
    means = sums / counts[:, None]

    # Merge bins that split one colour at a quantisation boundary, biggest first.
    clusters: list[tuple[np.ndarray, int]] = []
    for i in np.argsort(-counts, kind="stable"):
        mean, n = means[i], int(counts[i])
        for k, (c_mean, c_n) in enumerate(clusters):
            if float(np.linalg.norm(c_mean - mean)) <= _MERGE_DISTANCE:
                clusters[k] = ((c_mean * c_n + mean * n) / (c_n + n), c_n + n)
                break
        else:
            clusters.append((mean, n))
    total = float(len(pixels))
    clusters.sort(key=lambda c: -c[1])
    return [
        "#{:02x}{:02x}{:02x}".format(*(round(v) for v in mean))
        for mean, n in clusters[:count]
        if n / total >= MIN_COLOR_SHARE
    ]


def _describe(frame_bgr: np.ndarray) -> tuple[str, list[str]]:
    return " ".join(ocr.read_lines(frame_bgr)), dominant_colors(frame_bgr)


def analyze_video(path: str | Path) -> VisualAnalysis:
    p = require_file(path)
    shots = detect_shots(p)
    frames = keyframes(p, [s.middle_frame for s in shots])
    scenes: list[Scene] = []
    for i, shot in enumerate(shots):
        frame = frames.get(shot.middle_frame)
        text, colors = _describe(frame) if frame is not None else ("", [])
        scenes.append(Scene(i, shot.start, shot.end, text, colors))
    span = shots[-1].end - shots[0].start
    return VisualAnalysis(
        scene_count=len(scenes),
        avg_scene_seconds=span / len(scenes),
        scenes=scenes,
        on_screen_text=merge_on_screen_text(s.on_screen_text for s in scenes),
    )


def _load_image(path: Path) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            rgb = np.asarray(image.convert("RGB"))
    except (UnidentifiedImageError, OSError) as exc:
        raise UnsupportedMedia(f"not a readable image: {path.name}") from exc
    return np.ascontiguousarray(rgb[:, :, ::-1])  # BGR, as OpenCV and RapidOCR expect


def analyze_images(paths: Sequence[str | Path]) -> VisualAnalysis:
    """One scene per image, in order; start/end are slide positions (i, i + 1)."""
    scenes: list[Scene] = []
    for i, path in enumerate(paths):
        text, colors = _describe(_load_image(require_file(path)))
        scenes.append(Scene(i, float(i), float(i + 1), text, colors))
    return VisualAnalysis(
        scene_count=len(scenes),
        avg_scene_seconds=None,
        scenes=scenes,
        on_screen_text=merge_on_screen_text(s.on_screen_text for s in scenes),
    )
