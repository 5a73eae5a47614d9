"""The offline remix engine's first step: the source post cut into timed beats.

A beat is one scene when there is a visual analysis (with the words spoken during it), else
one transcript segment, else one sentence of the transcript or caption with time shared by
word count (equally between slides). Beats are merged down to at most `MAX_BEATS` and
retimed to be contiguous from 0 to the end of the source. Pure and deterministic, like
`offline_text`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from sors.remix import offline_text as tx
from sors.remix.schemas_remix import MAX_TOTAL_SECONDS, RemixInput

MAX_BEATS = 12
WORDS_PER_SECOND = 2.6  # conversational short-form speech
SLIDE_SECONDS = 3.0
SLIDE_FORMATS = frozenset({"slideshow", "carousel", "image"})


@dataclass
class Beat:
    start: float
    end: float
    speech: str = ""
    screen: str = ""
    colors: list[str] = field(default_factory=list)
    scenes: tuple[int, int] | None = None  # 1-based source scene numbers it covers

    def absorb(self, other: Beat) -> Beat:
        scenes = self.scenes or other.scenes
        if self.scenes and other.scenes:
            scenes = (min(self.scenes[0], other.scenes[0]), max(self.scenes[1], other.scenes[1]))
        return Beat(
            start=min(self.start, other.start),
            end=max(self.end, other.end),
            speech=_join(self.speech, other.speech, " "),
            screen=_join(self.screen, other.screen, " / "),
            colors=self.colors or other.colors,
            scenes=scenes,
        )


def _join(a: str, b: str, sep: str) -> str:
    if not a or a == b:
        return b
    return a if not b else f"{a}{sep}{b}"


def _num(value: float | None, default: float = 0.0) -> float:
    """`value` when it is a finite number, else `default`."""
    return value if value is not None and math.isfinite(value) else default


def _segments(inp: RemixInput) -> list[tuple[float, float, str]]:
    out = []
    for s in inp.transcript_segments:
        text = " ".join(s.text.split())
        start, end = _num(s.start), _num(s.end)
        if text and end >= start >= 0:
            out.append((start, end, text))
    return sorted(out, key=lambda s: s[0])


def _scene_beats(inp: RemixInput) -> list[Beat]:
    beats = []
    for position, s in enumerate(sorted(inp.scenes, key=lambda s: _num(s.start))):
        start, end = _num(s.start), _num(s.end)
        if end <= start:
            continue
        number = int(_num(s.index, position)) + 1
        colors = [c for c in s.dominant_colors if c.strip()]
        screen = " ".join(s.on_screen_text.split())
        beats.append(Beat(start, end, screen=screen, colors=colors[:3], scenes=(number, number)))
    return beats


def _place_speech(beats: list[Beat], inp: RemixInput) -> None:
    """Give each scene the words spoken during it (a segment belongs where its middle is)."""
    segments = _segments(inp)
    if segments:
        for start, end, text in segments:
            middle = (start + end) / 2
            target = beats[0]
            for beat in beats:
                if beat.start <= middle:
                    target = beat
            target.speech = _join(target.speech, text, " ")
        return
    lines = tx.sentences(inp.transcript_text or "")
    for i, line in enumerate(lines):
        beat = beats[i * len(beats) // len(lines)]
        beat.speech = _join(beat.speech, line, " ")


def _timed_lines(lines: list[str], duration: float | None, slides: bool) -> list[Beat]:
    """Beats for text without timestamps: time shared by word count over the duration."""
    words = [max(1, len(line.split())) for line in lines]
    if duration:
        total = duration
    elif slides:
        total = SLIDE_SECONDS * len(lines)
    else:
        total = max(sum(words) / WORDS_PER_SECOND, 2.0 * len(lines))
    beats, clock = [], 0.0
    for line, count in zip(lines, words, strict=True):
        length = total / len(lines) if slides else total * count / sum(words)
        beats.append(Beat(clock, clock + length, speech=line))
        clock += length
    return beats


def _merge_to(beats: list[Beat], limit: int) -> list[Beat]:
    """Neighbouring beats merged into at most `limit` balanced groups."""
    if len(beats) <= limit:
        return beats
    size, extra = divmod(len(beats), limit)
    out, i = [], 0
    for group in range(limit):
        take = size + (1 if group < extra else 0)
        merged = beats[i]
        for beat in beats[i + 1 : i + take]:
            merged = merged.absorb(beat)
        out.append(merged)
        i += take
    return out


def _retime(beats: list[Beat], duration: float | None) -> list[Beat]:
    """Contiguous timing: start at 0, each beat ends where the next begins, the last at the
    end of the source; beats left with no length fold into a neighbour."""
    beats = sorted(beats, key=lambda b: b.start)
    tail = max(beats[-1].end, duration or 0.0)
    timed = []
    for i, beat in enumerate(beats):
        start = 0.0 if i == 0 else beat.start
        end = beats[i + 1].start if i + 1 < len(beats) else tail
        timed.append(replace(beat, start=round(start, 2), end=round(end, 2)))
    out: list[Beat] = []
    carry: Beat | None = None
    for beat in timed:
        if carry is not None:
            beat, carry = replace(carry.absorb(beat), start=carry.start), None
        if beat.end - beat.start < 0.05:
            if out:
                out[-1] = replace(out[-1].absorb(beat), start=out[-1].start)
            else:
                carry = beat
            continue
        out.append(beat)
    if carry is not None:  # nothing had any length: give the one beat a readable one
        words = len((carry.speech or carry.screen).split())
        out.append(replace(carry, end=round(max(words / WORDS_PER_SECOND, 3.0), 2)))
    kept = [b for b in out if b.start < MAX_TOTAL_SECONDS]
    kept[-1] = replace(kept[-1], end=min(kept[-1].end, MAX_TOTAL_SECONDS))
    return kept


def source_beats(inp: RemixInput) -> list[Beat]:
    duration = _num(inp.duration_seconds) or None
    slides = inp.content_type in SLIDE_FORMATS
    beats = _scene_beats(inp)
    if beats:
        _place_speech(beats, inp)
    elif segments := _segments(inp):
        beats = [Beat(start, end, speech=text) for start, end, text in segments]
    else:
        text = (inp.transcript_text or "").strip() or tx.strip_tags(inp.caption)
        lines = tx.sentences(text) or [text]
        beats = _timed_lines(_merge_lines(lines), duration, slides)
    return _retime(_merge_to(beats, MAX_BEATS), duration)


def _merge_lines(lines: list[str]) -> list[str]:
    merged = _merge_to([Beat(i, i + 1, speech=line) for i, line in enumerate(lines)], MAX_BEATS)
    return [b.speech for b in merged]
