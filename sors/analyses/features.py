"""A post's features, computed in code from what the catalog holds: the hook (the first
seconds of speech, the first scene's on-screen text and the caption, reconciled), pacing
(speaking rate, cuts), format, caption, hashtags, publish time and engagement; for image
posts, slides and their text.

Pure functions: no database, no model. `post_features` returns the values (JSON-ready), how
each was measured (`measured`: a feature is compared only among posts where it was measured
the same way) and the hook; a feature that cannot be measured for a post (no speech, no
scenes, not an image post) is None, and the baseline ignores it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sors.analyses.hooks import classify_hook
from sors.analyses.reconcile import Witness, caption_line, reconcile
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
# What a feature needs: the transcript and visual analysis (media) or the post alone.
Source = Literal["media", "metadata"]
# Features are computed this many ways at most; stored with each post's features.
VERSION = 2
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
    FeatureSpec("hookType", "hook type", "category", "metadata"),
    FeatureSpec("hookWords", "words in the hook", "numeric", "metadata", "words"),
    FeatureSpec("speakingRate", "speaking rate", "numeric", "media", "words/min"),
    FeatureSpec("timeToFirstCut", "time to the first cut", "numeric", "media", "s"),
    FeatureSpec("cutsPerMinute", "cuts per minute", "numeric", "media", "cuts/min"),
    FeatureSpec("slideCount", "slide count", "numeric", "media", "slides"),
    FeatureSpec("textDensity", "on-screen words per slide", "numeric", "media", "words/slide"),
    FeatureSpec("spokenCallToAction", "spoken call to action", "flag", "media"),
    FeatureSpec("durationSeconds", "duration", "numeric", "metadata", "s"),
    FeatureSpec("format", "format", "category", "metadata"),
    FeatureSpec("captionLength", "caption length", "numeric", "metadata", "characters"),
    FeatureSpec("hashtagCount", "hashtags", "numeric", "metadata", "hashtags"),
    FeatureSpec("callToAction", "call to action in the caption", "flag", "metadata"),
    FeatureSpec("captionQuestion", "question in the caption", "flag", "metadata"),
    FeatureSpec("publishHour", "publish hour (UTC)", "hour", "metadata", "h"),
    FeatureSpec("publishWeekday", "publish weekday", "category", "metadata"),
    FeatureSpec("likeRate", "likes per 100 views", "numeric", "metadata", "%"),
    FeatureSpec("commentRate", "comments per 1,000 views", "numeric", "metadata", "/1,000"),
    FeatureSpec("shareRate", "shares per 1,000 views", "numeric", "metadata", "/1,000"),
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
    views: int | None = None
    likes: int | None = None
    comments: int | None = None
    shares: int | None = None


@dataclass(frozen=True)
class PostFeatures:
    """Every feature of FEATURES by name (None where it does not apply), how each was
    measured, and the hook's evidence (None when the post has no words at all)."""

    values: dict[str, FeatureValue]
    hook: Hook | None
    measured: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """As the catalog keeps them (`post_analyses.features`)."""
        return {"version": VERSION, "values": self.values, "measured": self.measured,
                "hook": None if self.hook is None else self.hook.model_dump(mode="json")}


def words(text: str) -> list[str]:
    return _WORD.findall(text or "")


def _spoken_hook(
    segments: Sequence[TranscriptSegment],
) -> tuple[str, float | None, float | None, float | None]:
    """(text, start, end, confidence) of the speech that begins within HOOK_SECONDS."""
    parts: list[str] = []
    start = end = None
    sure: list[tuple[float, int]] = []  # (confidence, words) of each segment kept
    for seg in segments:
        s, e, text = seg.start, seg.end, seg.text.strip()
        if s >= HOOK_SECONDS or not text:
            break
        if e > HOOK_SECONDS + HOOK_SPILL_SECONDS and e > s:
            ws = text.split()
            keep = max(1, math.ceil(len(ws) * (HOOK_SECONDS - s) / (e - s)))
            text, e = " ".join(ws[:keep]), HOOK_SECONDS
        parts.append(text)
        if seg.confidence is not None:
            sure.append((seg.confidence, len(text.split())))
        start = s if start is None else start
        end = e
    n = sum(w for _, w in sure)
    confidence = round(sum(c * w for c, w in sure) / n, 3) if n else None
    return " ".join(parts), start, end, confidence


def hook_of(m: PostMaterial) -> Hook | None:
    """The hook as the viewer met it: the first seconds of speech, the first scene's
    on-screen text and the caption, reconciled (sors.analyses.reconcile); None when the
    post has no words at all."""
    spoken, start, end, confidence = ("", None, None, None)
    if m.has_media and m.transcript_source == "speech":
        spoken, start, end, confidence = _spoken_hook(m.segments)
    scenes = (m.scenes or []) if m.has_media else []
    on_screen = scenes[0].on_screen_text.strip() if scenes else ""
    if m.has_media and not on_screen and m.content_type in IMAGE_TYPES and m.segments:
        on_screen = m.segments[0].text.strip()
    shown_at = (scenes[0].start, scenes[0].end) if scenes else (None, None)
    found = reconcile(
        Witness("speech", spoken, start, end, confidence) if spoken else None,
        Witness("on_screen_text", on_screen, *shown_at) if on_screen else None,
        m.caption,
    )
    if found is None:
        return None
    chosen = found.chosen
    # The span of what was chosen; a shown line that was also heard, the time it was heard.
    span = (chosen.start, chosen.end)
    if chosen.source == "on_screen_text" and "speech" in found.supported_by:
        span = (start, end)
    text = chosen.text
    kind = classify_hook(text)
    if kind == "other" and chosen.source != "caption":
        kind = classify_hook(" ".join([spoken, on_screen]).strip())
    return Hook(
        type=kind,
        text=text,
        spokenText=spoken or None,
        onScreenText=on_screen or None,
        startSecond=None if span[0] is None else round(span[0], 2),
        endSecond=None if span[1] is None else round(span[1], 2),
        source=chosen.source,
        supportedBy=list(found.supported_by),
        captionText=caption_line(m.caption) or None,
        speechConfidence=confidence,
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


def _per(part: int | None, views: int | None, scale: float) -> float | None:
    if part is None or not views:
        return None
    return round(part / views * scale, 2)


def post_features(m: PostMaterial) -> PostFeatures:
    """Every feature of FEATURES (None where it does not apply), how each was measured, and
    the hook's evidence."""
    caption = m.caption or ""
    hook = hook_of(m)
    first_cut, cuts = _cuts(m) if m.has_media else (None, None)
    slides, density = _slides(m) if m.has_media else (None, None)
    speech = m.has_media and m.transcript_source == "speech"
    spoken = " ".join(s.text for s in m.segments) if speech else ""
    values: dict[str, FeatureValue] = {
        "hookType": hook.type if hook else None,
        "hookWords": len(words(hook.text)) if hook and hook.text else None,
        "speakingRate": _speaking_rate(m) if m.has_media else None,
        "timeToFirstCut": first_cut,
        "cutsPerMinute": cuts,
        "slideCount": slides,
        "textDensity": density,
        "spokenCallToAction": bool(_CTA.search(spoken)) if speech and spoken else None,
        "durationSeconds": m.duration_seconds if m.content_type in VIDEO_TYPES else None,
        "format": m.content_type,
        "captionLength": len(caption),
        "hashtagCount": len(m.hashtags),
        "callToAction": bool(_CTA.search(caption)),
        "captionQuestion": "?" in caption,
        "publishHour": m.published_at.hour,
        "publishWeekday": WEEKDAYS[m.published_at.weekday()],
        "likeRate": _per(m.likes, m.views, 100.0),
        "commentRate": _per(m.comments, m.views, 1000.0),
        "shareRate": _per(m.shares, m.views, 1000.0),
    }
    # How each was measured: like is compared with like (sors.analyses.findings).
    hook_way = "media" if m.has_media else "caption"
    ways = {"hookType": hook_way, "hookWords": hook_way, "speakingRate": "speech",
            "spokenCallToAction": "speech", "timeToFirstCut": "scenes",
            "cutsPerMinute": "scenes", "slideCount": "scenes", "textDensity": "scenes"}
    measured = {name: ways.get(name, "metadata") for name, v in values.items() if v is not None}
    return PostFeatures(values, hook, measured)
