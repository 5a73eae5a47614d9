"""The built-in remix engine: no model, deterministic, written from the source itself.

The source is cut into beats (one per scene when there is a visual analysis, else one per
transcript chunk), each beat keeps its timing, and its spoken line is retold for the target
niche: the source's topic words give way to the niche, everything else — hook pattern,
structure, pacing, call to action — stays. The result names itself `sors-offline-1`.

The beats come from `offline_beats`; this module plans the retelling and writes the script,
title, description and checklist from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sors.remix import offline_text as tx
from sors.remix.offline_beats import SLIDE_FORMATS, Beat, source_beats
from sors.remix.schemas_remix import Remix, RemixError, RemixInput

ENGINE_NAME = "sors-offline-1"
MAX_VOICEOVER_WORDS = 120

_ENERGETIC = ("energetic", "hype", "excit", "fun", "playful", "bold", "upbeat", "loud")
_CALM = ("calm", "professional", "serious", "educational", "formal", "informative", "soft")


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
            kind = (plan.inp.keep_hook_type or "").replace("_", " ") or plan.hook.kind
            labels.append(f"Hook ({kind})")
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
    keep = inp.keep_line()
    # What stood out comes first; the list stays within its ten items.
    return [keep, *items][:10] if keep else items


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
