"""A post's features, computed in code from what the catalog holds: the hook (the first
seconds of speech and the first scene's on-screen text), pacing (speaking rate, cuts),
format, caption, hashtags and publish time; for image posts, slides and their text.

Pure functions: no database, no model. `post_features` returns the values (JSON-ready) and
the hook; a feature that cannot be measured for a post (no speech, no scenes, not an image
post) is None, and the baseline ignores it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sors.analyses.hooks import classify_hook
from sors.catalog.records.analysis_schemas import Hook
from sors.enrichment.analysis import Scene, TranscriptSegment

# The hook is what a viewer sees and hears before deciding to stay: the first ~3 seconds.
HOOK_SECONDS = 3.0
# A sentence that starts inside the hook is kept whole unless it runs this far past it
# (then only its words up to the hook's end, by their share of its time).
HOOK_SPILL_SECONDS = 3.0
VIDEO_TYPES = frozenset({"video", "reel", "short", "live"})
IMAGE_TYPES = frozenset({"slideshow", "carousel", "image"})
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
_CTA = re.compile(
    r"\b(?:follow|subscribe|comment|save (?:this|it)|share (?:this|it)|link in (?:my )?bio"
    r"|tag (?:a|your) friend|dm me|sign up|check out|click|tell me|let me know"
    r"|try (?:this|it))\b",
    re.I,
)

Kind = Literal["numeric", "category", "flag", "hour"]
Source = Literal["media", "metadata"]
# What a feature measures: a number, a category, a flag; None where it does not apply.
FeatureValue = str | int | float | bool | None


@dataclass(frozen=True)
class FeatureSpec:
    name: str
    label: str
    kind: Kind
    source: Source  # media: needs the transcript or visual analysis
    unit: str = ""


# Every compared feature, in the order the API shows them (docs/API.md).
FEATURES: tuple[FeatureSpec, ...] = (
    FeatureSpec("hookType", "hook type", "category", "media"),
    FeatureSpec("hookWords", "words in the hook", "numeric", "media", "words"),
    FeatureSpec("speakingRate", "speaking rate", "numeric", "media", "words/min"),
    FeatureSpec("timeToFirstCut", "time to the first cut", "numeric", "media", "s"),
    FeatureSpec("cutsPerMinute", "cuts per minute", "numeric", "media", "cuts/min"),
    FeatureSpec("slideCount", "slide count", "numeric", "media", "slides"),
    FeatureSpec("textDensity", "on-screen words per slide", "numeric", "media", "words/slide"),
    FeatureSpec("durationSeconds", "duration", "numeric", "metadata", "s"),
    FeatureSpec("format", "format", "category", "metadata"),
    FeatureSpec("captionLength", "caption length", "numeric", "metadata", "characters"),
    FeatureSpec("hashtagCount", "hashtags", "numeric", "metadata", "hashtags"),
    FeatureSpec("callToAction", "call to action", "flag", "metadata"),
    FeatureSpec("captionQuestion", "question in the caption", "flag", "metadata"),
    FeatureSpec("publishHour", "publish hour (UTC)", "hour", "metadata", "h"),
    FeatureSpec("publishWeekday", "publish weekday", "category", "metadata"),
)
SPECS = {f.name: f for f in FEATURES}


@dataclass(frozen=True)
class PostMaterial:
    """What the features are computed from (the catalog's post, transcript and scenes)."""

    content_type: str
    caption: str
    published_at: datetime
    duration_seconds: float | None = None
    hashtags: Sequence[str] = ()
    transcript_source: str | None = None  # a TranscriptSource; None: no transcript yet
    segments: Sequence[TranscriptSegment] = ()
    scenes: Sequence[Scene] | None = None  # None: no visual analysis yet
    has_media: bool = field(default=False)  # transcript and visual analysis both present


@dataclass(frozen=True)
class PostFeatures:
    """Every feature of FEATURES by name (None where it does not apply), and the hook's
    evidence (None without media)."""

    values: dict[str, FeatureValue]
    hook: Hook | None

    def to_json(self) -> dict[str, object]:
        """As the catalog keeps them (`post_analyses.features`)."""
        return {"values": self.values,
                "hook": None if self.hook is None else self.hook.model_dump(mode="json")}


def words(text: str) -> list[str]:
    return _WORD.findall(text or "")


def _spoken_hook(
    segments: Sequence[TranscriptSegment],
) -> tuple[str, float | None, float | None]:
    """(text, start, end) of the speech that begins within the first HOOK_SECONDS."""
    parts: list[str] = []
    start = end = None
    for seg in segments:
        s, e, text = seg.start, seg.end, seg.text.strip()
        if s >= HOOK_SECONDS or not text:
            break
        if e > HOOK_SECONDS + HOOK_SPILL_SECONDS and e > s:
            ws = text.split()
            keep = max(1, math.ceil(len(ws) * (HOOK_SECONDS - s) / (e - s)))
            text, e = " ".join(ws[:keep]), HOOK_SECONDS
        parts.append(text)
        start = s if start is None else start
        end = e
    return " ".join(parts), start, end


def hook_of(m: PostMaterial) -> Hook:
    """The hook: first seconds of speech, the first scene's on-screen text, their type."""
    spoken, start, end = ("", None, None)
    if m.transcript_source == "speech":
        spoken, start, end = _spoken_hook(m.segments)
    scenes = m.scenes or []
    on_screen = scenes[0].on_screen_text.strip() if scenes else ""
    if not on_screen and m.content_type in IMAGE_TYPES and m.segments:
        on_screen = m.segments[0].text.strip()
    if start is None and scenes and on_screen:
        start, end = scenes[0].start, scenes[0].end
    # Speech is what the hook says; a silent video or a slideshow says it in text.
    text = spoken or on_screen
    return Hook(
        type=classify_hook(" ".join([spoken, on_screen]).strip()) if text else None,
        text=text,
        spokenText=spoken or None,
        onScreenText=on_screen or None,
        startSecond=None if start is None else round(start, 2),
        endSecond=None if end is None else round(end, 2),
    )


def _speaking_rate(m: PostMaterial) -> float | None:
    if m.transcript_source != "speech" or not m.segments:
        return None
    n = sum(len(words(s.text)) for s in m.segments)
    spoken = sum(max(0.0, s.end - s.start) for s in m.segments)
    return round(n / spoken * 60.0, 1) if n and spoken > 0 else None


def _cuts(m: PostMaterial) -> tuple[float | None, float | None]:
    """(seconds to the first cut, cuts per minute) of a video with a scene analysis."""
    if m.content_type not in VIDEO_TYPES or not m.scenes:
        return None, None
    scenes = sorted(m.scenes, key=lambda s: s.start)
    length = m.duration_seconds or scenes[-1].end
    first = round(scenes[1].start, 2) if len(scenes) > 1 else None
    per_min = round((len(scenes) - 1) / length * 60.0, 2) if length > 0 else None
    return first, per_min


def _slides(m: PostMaterial) -> tuple[int | None, float | None]:
    if m.content_type not in IMAGE_TYPES or m.scenes is None:
        return None, None
    count = len(m.scenes)
    text_words = sum(len(words(s.on_screen_text)) for s in m.scenes)
    return count, (round(text_words / count, 1) if count else None)


def post_features(m: PostMaterial) -> PostFeatures:
    """Every feature of FEATURES (None where it does not apply), plus `hook`'s evidence."""
    caption = m.caption or ""
    hook = hook_of(m) if m.has_media else None
    first_cut, cuts = _cuts(m) if m.has_media else (None, None)
    slides, density = _slides(m) if m.has_media else (None, None)
    spoken = " ".join(s.text for s in m.segments) if m.transcript_source == "speech" else ""
    values: dict[str, FeatureValue] = {
        "hookType": hook.type if hook else None,
        "hookWords": len(words(hook.text)) if hook and hook.text else None,
        "speakingRate": _speaking_rate(m) if m.has_media else None,
        "timeToFirstCut": first_cut,
        "cutsPerMinute": cuts,
        "slideCount": slides,
        "textDensity": density,
        "durationSeconds": m.duration_seconds if m.content_type in VIDEO_TYPES else None,
        "format": m.content_type,
        "captionLength": len(caption),
        "hashtagCount": len(m.hashtags),
        "callToAction": bool(_CTA.search(caption) or _CTA.search(spoken)),
        "captionQuestion": "?" in caption,
        "publishHour": m.published_at.hour,
        "publishWeekday": WEEKDAYS[m.published_at.weekday()],
    }
    return PostFeatures(values, hook)
