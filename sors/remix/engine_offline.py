"""The built-in remix engine: no model, deterministic, written from the source itself.

The source is cut into beats (one per scene when there is a visual analysis, else one per
transcript chunk), each beat keeps its timing, and the script follows the source's hook
pattern, structure, pacing and call to action. The lines are the engine's own, written for
the target niche (`offline_lines`): a source line is kept only when nothing in it belongs
to the source's subject, since retelling one without a model would be find-and-replace.
The result names itself `sors-offline-1`.

The beats come from `offline_beats`; this module plans the script and writes its title,
description and checklist.
"""

from __future__ import annotations

from dataclasses import dataclass

from sors.remix import offline_lines as lines
from sors.remix import offline_text as tx
from sors.remix.offline_beats import SLIDE_FORMATS, Beat, source_beats
from sors.remix.schemas_remix import Remix, RemixError, RemixInput, ScriptSegment

ENGINE_NAME = "sors-offline-1"
MAX_VOICEOVER_WORDS = 120

_ENERGETIC = ("energetic", "hype", "excit", "fun", "playful", "bold", "upbeat", "loud")
_CALM = ("calm", "professional", "serious", "educational", "formal", "informative", "soft")


@dataclass(frozen=True)
class _Plan:
    inp: RemixInput
    niche: tx.Niche
    hook: tx.Hook
    slides: bool
    spoken: bool  # the source speaks (else music and text carry it)
    cta: bool

    @property
    def core(self) -> str:
        return self.niche.core

    @property
    def hook_kind(self) -> str:
        """The hook pattern to keep: the analysed one when the remix was asked to keep it."""
        analysed = (self.inp.keep_hook_type or "").replace("_", "-")
        return lines.ANALYSED_HOOKS.get(analysed, analysed) or self.hook.kind

    def toned(self, line: str) -> str:
        return _apply_tone(line, self.inp.tone)


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
    first_line = next((b.speech or b.screen for b in beats if b.speech or b.screen), "")
    last = beats[-1]
    return _Plan(
        inp=inp,
        niche=tx.parse_niche(inp.target_niche),
        hook=tx.classify_hook(tx.sentences(first_line)[0] if first_line else inp.caption),
        slides=inp.content_type in SLIDE_FORMATS,
        spoken=bool(speech.strip()) and inp.content_type not in SLIDE_FORMATS,
        cta=len(beats) > 1 and tx.has_cta(lines.reconcile(last.speech, last.screen)),
    )


def _labels(plan: _Plan, beats: list[Beat]) -> list[str]:
    n, labels, point = len(beats), [], 0
    for i, beat in enumerate(beats):
        line = beat.speech or beat.screen
        if i == 0:
            labels.append(f"Hook ({plan.hook_kind.replace('-', ' ')})")
        elif i == n - 1:
            labels.append("Call to action" if plan.cta else "Payoff")
        elif i == 1 and n >= 4 and plan.hook.kind != "list" and not tx.is_list_step(line):
            labels.append("Setup")
        else:
            point += 1
            step = plan.hook.kind == "list" or tx.is_list_step(line)
            labels.append(f"{'Step' if step else 'Point'} {point}")
    return labels


def _written(
    plan: _Plan, beat: Beat, label: str, index: int, n: int
) -> tuple[str, str, bool]:
    """The beat's (spoken line, on-screen text, whether the text is the source's): the
    engine's own for the niche, or the source's where it can be said in any niche (the
    on-screen words over mis-heard ones)."""
    heard = lines.reconcile(beat.speech, beat.screen)
    if index == 0:
        return (*lines.hook(plan.hook_kind, plan.niche, points=max(n - 2, 1)), False)
    if index == n - 1 and plan.cta:
        said, shown = lines.call_to_action(heard or beat.screen, plan.niche)
    elif label == "Setup":
        said, shown = lines.setup(plan.niche)
    elif label.startswith(("Step", "Point")):
        said, shown = lines.point(int(label.split()[-1]), label.startswith("Step"), plan.niche)
    else:
        said, shown = lines.payoff(plan.niche)
    kept_said = lines.kept_sentences(heard, plan.niche)
    kept_shown = lines.kept_sentences(lines.as_sentences(beat.screen), plan.niche)
    return (
        tx.shorten(kept_said, MAX_VOICEOVER_WORDS, 900) if kept_said else said,
        tx.shorten(kept_shown or kept_said, 12, 160) if kept_shown or kept_said else shown,
        bool(kept_shown or kept_said),
    )


def _voiceover(plan: _Plan, beat: Beat, said: str, first: bool) -> str:
    if plan.slides or not beat.speech:
        if first and not plan.slides and plan.spoken:
            return "(No voiceover here — the on-screen hook carries the first seconds.)"
        if plan.slides:
            return "None — music under the slide; the slide text carries this beat."
        return "(No voiceover — let the visual land on the beat of the music.)"
    return plan.toned(said)


def _on_screen(plan: _Plan, shown: str, first: bool) -> str:
    text = plan.toned(shown)
    if first and not tx.mentions(text, plan.core):
        lead = text if text[1:2].isupper() else text[:1].lower() + text[1:]  # "POV" stays
        return tx.shorten(f"{_capital(plan.core)}: {lead}", 12, 160)
    return text


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
        body = "face the camera (or hold on the result) for the ask."
    elif on_screen:
        body = f"show the {core} moment that matches the text “{tx.shorten(on_screen, 8, 60)}”."
    elif beat.speech:
        body = f"{core} footage that shows exactly what the line says."
    else:
        body = f"{core} b-roll; cut on the beat, as the source does."
    palette = f" Palette like the source: {', '.join(beat.colors)}." if beat.colors else ""
    return f"{lead}: {body}{palette}"


def _title(plan: _Plan, hook_line: str) -> str:
    return tx.shorten(plan.toned(hook_line), 16, 100)


def _description(plan: _Plan, segments: int, total: float) -> str:
    inp = plan.inp
    who = f"@{inp.handle}'s" if inp.handle else "a"
    score = f", {inp.outlier_score:.1f}× its creator's usual views" if inp.outlier_score else ""
    source = f"{who} {inp.platform} {inp.content_type} ({tx.human_count(inp.views)} views{score})"
    tone = f"Tone: {inp.tone}." if inp.tone else "Tone: as the source."
    tags = " ".join(f"#{t}" for t in plan.niche.hashtags)
    return (
        f"A {segments}-segment, ~{total:.0f} s idea for {plan.niche.full}, remixed from {source}. "
        f"It keeps the source's hook ({plan.hook.description}), structure and pacing "
        f"(~{total / segments:.1f} s per segment), writes its lines for {plan.core} and, "
        f"where the source's points are about its own subject, says what to put there. "
        f"{tone} Suggested hashtags: {tags}. Written by sors' built-in offline engine (no "
        f"language model)."
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


def _checklist(plan: _Plan, script: list[ScriptSegment], total: float) -> list[str]:
    inp, n = plan.inp, len(script)
    hook_vo, hook_screen = script[0].voiceover, script[0].onScreenText
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
    script: list[ScriptSegment] = []
    hook_line = ""
    for i, (beat, label) in enumerate(zip(beats, labels, strict=True)):
        first, last = i == 0, i == len(beats) - 1
        said, shown, kept = _written(plan, beat, label, i, len(beats))
        hook_line = hook_line or said
        on_screen = _on_screen(plan, shown, first)
        script.append(ScriptSegment(
            segment=i + 1,
            label=label,
            startSecond=beat.start,
            endSecond=beat.end,
            visual=_visual(plan, beat, first, last, on_screen if kept else ""),
            voiceover=_voiceover(plan, beat, said, first),
            onScreenText=on_screen,
        ))
    total = beats[-1].end
    return Remix(
        title=_title(plan, hook_line),
        description=_description(plan, len(script), total),
        script=script,
        checklist=_checklist(plan, script, total),
        engine=ENGINE_NAME,
    )


class OfflineRemixEngine:
    """Deterministic remixes from the transcript, scenes and caption; no model involved."""

    name = ENGINE_NAME

    async def remix(self, inp: RemixInput) -> Remix:
        # Pure CPU work on a few kilobytes of text: milliseconds, no need for a thread.
        return build_remix(inp)
