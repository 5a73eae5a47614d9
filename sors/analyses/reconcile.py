"""The hook as the viewer met it: what was said, what was shown and what the caption says,
reconciled into one line that names where it came from.

Three witnesses, each fallible: speech-to-text mishears ("I tried as I breakfast bowl" for
"I tried acai breakfast bowl"), OCR misreads, and a caption is written apart from the video.
The rules (docs/API.md, "The hook"):

1. The same line heard and shown (most content words, or most letters in order, shared —
   a misheard "set up" is still "setup"): the version whose own words
   the caption supports wins; if the caption decides nothing, the on-screen text, which the
   creator typed, wins over the machine's hearing of it — unless the speech model was sure
   of its words (confidence >= SURE) and the screen's own words are not supported.
2. Different lines: the one the caption supports more wins; with no support either way the
   speech (what the viewer hears first), unless the model was unsure of it (< UNSURE).
3. One witness: it. None: the caption's first sentence (`source: "caption"`).

`supportedBy` lists the other witnesses that carry most of the chosen line's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

WitnessSource = Literal["speech", "on_screen_text", "caption"]

# Words that say nothing about which version is right.
_STOP = frozenset(
    "a an the and or but of to in on for with at by from is are was were be been it its "
    "this that these those i im i'm my me you your we our they their he she his her so do "
    "did does just not no yes if as up out about into than then there here what how why".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TAG = re.compile(r"[#@]\w+|https?://\S+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")

SAME_LINE = 0.5  # share of the shorter line's content words the other holds
SAME_SOUND = 0.75  # or share of its letters, in order
SUPPORTED = 0.5  # share of the chosen line's content words another witness holds
SURE = 0.9
UNSURE = 0.5
CAPTION_HOOK_CHARS = 150


@dataclass(frozen=True)
class Witness:
    source: WitnessSource
    text: str
    start: float | None = None
    end: float | None = None
    confidence: float | None = None  # speech only


@dataclass(frozen=True)
class Reconciled:
    chosen: Witness
    supported_by: tuple[WitnessSource, ...]


def content_words(text: str) -> set[str]:
    found = _WORD.findall(text.lower().replace("’", "'"))
    return {w for w in found if w not in _STOP}


def overlap(a: set[str], b: set[str]) -> float:
    """The share of the smaller set's words the other holds (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def letters(text: str) -> str:
    return "".join(_WORD.findall(text.lower().replace("’", "'"))).replace("'", "")


def sounds_alike(a: str, b: str) -> float:
    """The share of the shorter line's letters found, in order, in the other: a misheard
    line ("cold while it's set up") stays close to the shown one ("cold wallet setup")."""
    x, y = letters(a), letters(b)
    if not x or not y:
        return 0.0
    blocks = SequenceMatcher(None, x, y, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) / min(len(x), len(y))


def held(words: set[str], by: set[str]) -> float:
    """The share of `words` that `by` holds."""
    return len(words & by) / len(words) if words else 0.0


def caption_line(caption: str) -> str:
    """The caption's opening sentence without hashtags, mentions or links (what a viewer
    reads first), cut at a word near CAPTION_HOOK_CHARS."""
    text = " ".join(_TAG.sub(" ", caption or "").split())
    first = _SENTENCE_END.split(text, maxsplit=1)[0].strip() if text else ""
    if len(first) > CAPTION_HOOK_CHARS:
        first = first[:CAPTION_HOOK_CHARS].rsplit(" ", 1)[0] + "…"
    return first


def _same_line(speech: Witness, screen: Witness, caption: set[str]) -> Witness:
    said, shown = content_words(speech.text), content_words(screen.text)
    said_own, shown_own = said - shown, shown - said
    for_said, for_shown = len(said_own & caption), len(shown_own & caption)
    if for_said != for_shown:
        return speech if for_said > for_shown else screen
    sure = speech.confidence is not None and speech.confidence >= SURE
    if sure and shown_own and not (shown_own & caption):
        return speech
    return screen


def _different_lines(speech: Witness, screen: Witness, caption: set[str]) -> Witness:
    for_said = held(content_words(speech.text), caption)
    for_shown = held(content_words(screen.text), caption)
    if abs(for_said - for_shown) > 1e-9:
        return speech if for_said > for_shown else screen
    unsure = speech.confidence is not None and speech.confidence < UNSURE
    return screen if unsure else speech


def reconcile(speech: Witness | None, screen: Witness | None, caption: str) -> Reconciled | None:
    """The hook line and the witnesses that support it; None when nothing was said, shown
    or written. The whole caption supports; its opening sentence is the hook when nothing
    was said or shown."""
    speech = speech if speech and speech.text.strip() else None
    screen = screen if screen and screen.text.strip() else None
    line = caption_line(caption)
    written = Witness("caption", line) if line else None
    cap_words = content_words(_TAG.sub(" ", caption or ""))
    if speech and screen:
        same = (overlap(content_words(speech.text), content_words(screen.text)) >= SAME_LINE
                or sounds_alike(speech.text, screen.text) >= SAME_SOUND)
        chosen = (_same_line if same else _different_lines)(speech, screen, cap_words)
    else:
        found = speech or screen or written
        if found is None:
            return None
        chosen = found
    mine = content_words(chosen.text)
    support: list[WitnessSource] = [
        w.source for w in (speech, screen)
        if w is not None and w is not chosen and (
            held(mine, content_words(w.text)) >= SUPPORTED
            or sounds_alike(chosen.text, w.text) >= SAME_SOUND)
    ]
    if chosen is not written and written is not None and held(mine, cap_words) >= SUPPORTED:
        support.append("caption")
    return Reconciled(chosen, tuple(support))
