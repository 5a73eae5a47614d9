"""The built-in remix engine: no model, deterministic, written from the source itself.

The source is cut into beats (one per scene when there is a visual analysis, else one per
transcript chunk), each beat keeps its timing, and its spoken line is retold for the target
niche: the source's topic words give way to the niche, everything else — hook pattern,
structure, pacing, call to action — stays. The result names itself `sors-offline-1`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from sors.remix import offline_text as tx
from sors.remix.schemas_remix import MAX_TOTAL_SECONDS, Remix, RemixError, RemixInput

ENGINE_NAME = "sors-offline-1"
MAX_BEATS = 12
WORDS_PER_SECOND = 2.6  # conversational short-form speech
SLIDE_SECONDS = 3.0
MAX_VOICEOVER_WORDS = 120
SLIDE_FORMATS = frozenset({"slideshow", "carousel", "image"})

_ENERGETIC = ("energetic", "hype", "excit", "fun", "playful", "bold", "upbeat", "loud")
_CALM = ("calm", "professional", "serious", "educational", "formal", "informative", "soft")


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


def _num(value: Any, default: float = 0.0) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return default
    return out if math.isfinite(out) else default


# -- the source, cut into beats ------------------------------------------------------------


def _segments(inp: RemixInput) -> list[tuple[float, float, str]]:
    out = []
    for s in inp.transcript_segments:
        text = " ".join(str(s.get("text") or "").split())
        start, end = _num(s.get("start")), _num(s.get("end"))
        if text and end >= start >= 0:
            out.append((start, end, text))
    return sorted(out, key=lambda s: s[0])


def _scene_beats(inp: RemixInput) -> list[Beat]:
    beats = []
    for position, s in enumerate(sorted(inp.scenes, key=lambda s: _num(s.get("start")))):
        start, end = _num(s.get("start")), _num(s.get("end"))
        if end <= start:
            continue
        number = int(_num(s.get("index"), position)) + 1
        colors = [str(c) for c in (s.get("dominant_colors") or []) if str(c).strip()]
        screen = " ".join(str(s.get("on_screen_text") or "").split())
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


# -- the remix, written beat by beat -------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    inp: RemixInput
    niche: tx.Niche
    topics: list[str]
    hook: tx.Hook
    slides: bool
    spoken: bool  # the source speaks (else music and text carry it)
    cta: bool

    @property
    def core(self) -> str:
        return self.niche.core

    def adapt(self, line: str) -> str:
        # Emoji belong to the source's topic (a 🍝 in a pasta video), so they go too.
        line = tx.strip_symbols(tx.swap_topic(line, self.topics, self.niche))
        return _apply_tone(line, self.inp.tone)

    def with_niche(self, text: str) -> str:
        if tx.mentions(text, self.core):
            return text
        lead = text[:1].lower() + text[1:] if text[:2] not in ("I ", "I'") else text
        return f"{_capital(self.core)}: {lead}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _apply_tone(line: str, tone: str | None) -> str:
    t = (tone or "").lower()
    if any(k in t for k in _CALM):
        return line.replace("!", ".")
    if any(k in t for k in _ENERGETIC) and line.endswith("."):
        return line[:-1] + "!"
    return line


def _plan(inp: RemixInput, beats: list[Beat]) -> _Plan:
    speech = " ".join(b.speech for b in beats)
    screen = " ".join(b.screen for b in beats)
    ranked = tx.topic_terms(
        [
            (inp.transcript_text or speech, 1),
            (screen, 1),
            (tx.strip_tags(inp.caption), 2),
            (" ".join(tx.hashtags(inp.caption)), 2),
        ],
        limit=6,
    )
    topics = tx.swap_terms(ranked, tx.hashtags(inp.caption))
    first_line = next((b.speech or b.screen for b in beats if b.speech or b.screen), "")
    last = beats[-1]
    return _Plan(
        inp=inp,
        niche=tx.parse_niche(inp.target_niche),
        topics=topics,
        hook=tx.classify_hook(tx.sentences(first_line)[0] if first_line else inp.caption),
        slides=inp.content_type in SLIDE_FORMATS,
        spoken=bool(speech.strip()) and inp.content_type not in SLIDE_FORMATS,
        cta=len(beats) > 1 and tx.has_cta(last.speech or last.screen),
    )


def _labels(plan: _Plan, beats: list[Beat]) -> list[str]:
    n, labels, point = len(beats), [], 0
    for i, beat in enumerate(beats):
        line = beat.speech or beat.screen
        if i == 0:
            labels.append(f"Hook ({plan.hook.kind})")
        elif i == n - 1:
            labels.append("Call to action" if plan.cta else "Payoff")
        elif i == 1 and n >= 4 and plan.hook.kind != "list" and not tx.is_list_step(line):
            labels.append("Setup")
        else:
            point += 1
            step = plan.hook.kind == "list" or tx.is_list_step(line)
            labels.append(f"{'Step' if step else 'Point'} {point}")
    return labels


def _voiceover(plan: _Plan, beat: Beat, first: bool) -> str:
    if plan.slides or not beat.speech:
        if first and not plan.slides and plan.spoken:
            return "(No voiceover here — the on-screen hook carries the first seconds.)"
        if plan.slides:
            return "None — music under the slide; the slide text carries this beat."
        return "(No voiceover — let the visual land on the beat of the music.)"
    # A beat of a long video can hold minutes of speech: the script keeps its opening lines.
    line = tx.shorten(plan.adapt(beat.speech), MAX_VOICEOVER_WORDS, 900)
    return plan.with_niche(line) if first else line


def _on_screen(plan: _Plan, beat: Beat, label: str, voiceover: str, first: bool) -> str:
    if beat.screen:
        text = tx.shorten(plan.adapt(beat.screen), 12, 160)
    elif beat.speech:
        text = tx.shorten(voiceover if not plan.slides else plan.adapt(beat.speech), 7, 80)
    else:
        text = f"{label}: {plan.core}"
    return tx.shorten(plan.with_niche(text), 12, 160) if first else text


def _visual(plan: _Plan, beat: Beat, first: bool, last: bool, on_screen: str) -> str:
    length = beat.end - beat.start
    if plan.slides:
        lead = f"Slide ({length:.1f} s on screen)"
    else:
        pace = "Quick cut" if length < 1.5 else "Shot" if length < 4 else "Long hold"
        lead = f"{pace} ({length:.1f} s)"
    if beat.scenes:
        a, b = beat.scenes
        lead += f", mirroring source scene {a}" if a == b else f", mirroring source scenes {a}-{b}"
    core = plan.core
    if first:
        body = f"open on the most striking {core} shot — the result first, no intro or logo."
    elif last and plan.cta:
        body = f"face the camera (or hold on the finished {core}) for the ask."
    elif beat.screen:
        body = f"show the {core} moment that matches the text “{tx.shorten(on_screen, 8, 60)}”."
    elif beat.speech:
        body = f"{core} footage that shows exactly what the line says."
    else:
        body = f"{core} b-roll; cut on the beat, as the source does."
    palette = f" Palette like the source: {', '.join(beat.colors)}." if beat.colors else ""
    return f"{lead}: {body}{palette}"


def _title(plan: _Plan, hook_voiceover: str, hook_screen: str) -> str:
    caption = tx.sentences(tx.strip_tags(plan.inp.caption))
    for candidate in (caption[0] if caption else "", hook_voiceover, hook_screen):
        if candidate and not candidate.startswith("("):
            adapted = plan.adapt(candidate)
            if tx.mentions(adapted, plan.core):
                return tx.shorten(adapted, 16, 100)
    base = caption[0] if caption else hook_screen
    return tx.shorten(plan.with_niche(plan.adapt(base)), 16, 100)


def _description(plan: _Plan, segments: int, total: float) -> str:
    inp = plan.inp
    who = f"@{inp.handle}'s" if inp.handle else "a"
    score = f", {inp.outlier_score:.1f}× its creator's usual views" if inp.outlier_score else ""
    source = f"{who} {inp.platform} {inp.content_type} ({tx.human_count(inp.views)} views{score})"
    swap = (
        f"swaps its topic ({', '.join(plan.topics)}) for {plan.core}"
        if plan.topics
        else f"retells it for {plan.core}"
    )
    tone = f"Tone: {inp.tone}." if inp.tone else "Tone: as the source."
    tags = " ".join(f"#{t}" for t in plan.niche.hashtags)
    return (
        f"A {segments}-segment, ~{total:.0f} s idea for {plan.niche.full}, remixed from {source}. "
        f"It keeps the source's hook ({plan.hook.description}), structure and pacing "
        f"(~{total / segments:.1f} s per segment) and {swap}. {tone} "
        f"Suggested hashtags: {tags}. Written by sors' built-in offline engine (no language "
        f"model)."
    )


_FORMAT_NOTES = {
    ("tiktok", "slideshow"): "Post as a TikTok photo slideshow of {n} slides with a trending "
    "sound; slide 1 is the hook.",
    ("instagram", "carousel"): "Post as an Instagram carousel of {n} slides; slide 1 is the "
    "hook, the last slide the ask.",
    ("instagram", "image"): "Post as a single image (or a short carousel); the hook text "
    "belongs on the image itself.",
    ("instagram", "reel"): "Film vertical 9:16 and post as a Reel; choose a cover frame that "
    "shows the hook text.",
    ("youtube", "short"): "Film vertical 9:16 and post as a YouTube Short; let the last line "
    "loop back into the first.",
    ("youtube", "video"): "Post as a YouTube video: use the segment labels as chapters and a "
    "thumbnail that repeats the hook.",
    ("youtube", "live"): "The source is a live stream: record this as a standalone cut and "
    "plug your next live in the ask.",
    ("tiktok", "video"): "Film vertical 9:16 for TikTok and repeat the hook as the first line "
    "of the caption.",
}


def _outlier_note(score: float | None) -> str:
    if score is None:
        return (
            "The source has no outlier score yet: treat this as an experiment and post two "
            "variants of the hook."
        )
    if score >= 5:
        return (
            f"Proven format: the source reached {score:.1f}× its creator's usual views — keep "
            "its structure and pacing exactly; change only the topic."
        )
    if score >= 2:
        return (
            f"Strong outlier ({score:.1f}× the creator's usual views): keep the hook and "
            "pacing, and test a second hook variant within a week."
        )
    return (
        f"Mild signal ({score:.1f}× the creator's usual views): post it, then iterate on the "
        "hook before investing in production."
    )


def _checklist(plan: _Plan, script: list[dict[str, Any]], total: float) -> list[str]:
    inp, n = plan.inp, len(script)
    hook_vo, hook_screen = script[0]["voiceover"], script[0]["onScreenText"]
    say = "" if hook_vo.startswith("(") or plan.slides else f"say “{tx.shorten(hook_vo, 10)}” and "
    source_length = (
        f" — the source ran {inp.duration_seconds:.0f} s" if inp.duration_seconds else ""
    )
    fmt = _FORMAT_NOTES.get(
        (inp.platform, inp.content_type),
        "Match the source's format: {n} segments in the same order.",
    )
    items = [
        f"Hook in the first 2 seconds: {say}show “{hook_screen}” from the first frame.",
        "On-screen text on every segment (7 words or fewer), clear of the bottom fifth and the "
        "right edge where the app's buttons sit.",
        f"Length: about {total:.0f} s in {n} segments (~{total / n:.1f} s each){source_length}.",
        fmt.format(n=n),
        _outlier_note(inp.outlier_score),
        "End with the same kind of ask the source uses in its last segment."
        if plan.cta
        else "The source ends without an ask: add one line (follow, save or comment) at the end.",
        f"Tone: {inp.tone} — deliver every line that way; cut any line that does not fit it."
        if inp.tone
        else "Keep the source's delivery: the same energy and speed.",
        "Record the voiceover close to the mic and burn in captions: most viewers watch muted."
        if plan.spoken
        else "The source runs on music, not speech: pick a trending sound and cut on its beats.",
        f"Caption: open with “{plan.core}”; hashtags "
        + " ".join(f"#{t}" for t in plan.niche.hashtags)
        + ".",
    ]
    return items


def build_remix(inp: RemixInput) -> Remix:
    if not inp.has_material():
        raise RemixError(
            "remix_input_insufficient",
            "The post has no transcript, on-screen text or caption to adapt.",
        )
    beats = source_beats(inp)
    plan = _plan(inp, beats)
    labels = _labels(plan, beats)
    script: list[dict[str, Any]] = []
    for i, (beat, label) in enumerate(zip(beats, labels, strict=True)):
        first, last = i == 0, i == len(beats) - 1
        voiceover = _voiceover(plan, beat, first)
        on_screen = _on_screen(plan, beat, label, voiceover, first)
        script.append(
            {
                "segment": i + 1,
                "label": label,
                "startSecond": beat.start,
                "endSecond": beat.end,
                "visual": _visual(plan, beat, first, last, on_screen),
                "voiceover": voiceover,
                "onScreenText": on_screen,
            }
        )
    total = beats[-1].end
    return Remix.model_validate(
        {
            "title": _title(plan, script[0]["voiceover"], script[0]["onScreenText"]),
            "description": _description(plan, len(script), total),
            "script": script,
            "checklist": _checklist(plan, script, total),
            "engine": ENGINE_NAME,
        }
    )


class OfflineRemixEngine:
    """Deterministic remixes from the transcript, scenes and caption; no model involved."""

    name = ENGINE_NAME

    async def remix(self, inp: RemixInput) -> Remix:
        # Pure CPU work on a few kilobytes of text: milliseconds, no need for a thread.
        return build_remix(inp)
