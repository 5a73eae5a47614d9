"""Overlapping phrase breakouts merged into the longest phrase that holds. Pure.

Phrases are two neighbouring caption words, so one idea of three words shows as two
breakouts that share a word (`sheet pan` and `pan dinner`; `travel gets` and `gets
easier`). Two phrase breakouts of one category where the first's last word is the second's
first word merge into the three-word phrase when their evidence posts say it: at least
HOLDS of the posts of both carry the words in that order, side by side (the captions
normalised as the phrases were: accents folded, lower-cased, hashtags, mentions and links
removed). The merged breakout keeps the better-ranked one's counts and place, and the
evidence of both (each post once); merging repeats, so a chain grows while it holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

HOLDS = 2 / 3
_DROP = re.compile(r"[#@]\S+|https?://\S+")
_SPLIT = re.compile(r"[\W_]+")


def words(caption: str | None) -> list[str]:
    """The caption's words as phrases see them."""
    text = _DROP.sub(" ", caption or "")
    folded = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return [w for w in _SPLIT.split(plain) if w]


def carries(caption: str | None, phrase: Sequence[str]) -> bool:
    ws, n = words(caption), len(phrase)
    return any(ws[i:i + n] == list(phrase) for i in range(len(ws) - n + 1))


@dataclass(frozen=True, slots=True)
class Phrase:
    """A phrase breakout as merging sees it: its place in the answer, its category, its
    words and its evidence post ids."""

    index: int
    category: str | None
    words: tuple[str, ...]
    evidence: tuple[str, ...]


def _join(a: Phrase, b: Phrase) -> tuple[str, ...] | None:
    """The longer phrase `a` and `b` overlap into, if they do (b's start ends a)."""
    for k in range(min(len(a.words), len(b.words)) - 1, 0, -1):
        if a.words[-k:] == b.words[:k]:
            return a.words + b.words[k:]
    return None


def merge(
    phrases: Sequence[Phrase], caption_of: Callable[[str], str | None]
) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]] | None]:
    """What becomes of each phrase breakout (by index): None when merged into another,
    else its (words, evidence) — changed only for those that absorbed others."""
    alive: dict[int, Phrase] = {p.index: p for p in phrases}
    changed = True
    while changed:
        changed = False
        for a in sorted(alive.values(), key=lambda p: p.index):
            for b in sorted(alive.values(), key=lambda p: p.index):
                if a.index == b.index or a.category != b.category:
                    continue
                joined = _join(a, b)
                if joined is None:
                    continue
                keep, gone = (a, b) if a.index < b.index else (b, a)
                posts = tuple(dict.fromkeys((*keep.evidence, *gone.evidence)))
                held = sum(carries(caption_of(i), joined) for i in posts)
                if not posts or held < HOLDS * len(posts):
                    continue
                alive[keep.index] = Phrase(keep.index, keep.category, joined, posts)
                del alive[gone.index]
                changed = True
                break
            if changed:
                break
    out: dict[int, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}
    for p in phrases:
        now = alive.get(p.index)
        out[p.index] = None if now is None else (now.words, now.evidence)
    return out


def apply(
    rows: Sequence[Mapping[str, object]], caption_of: Callable[[str], str | None]
) -> list[dict[str, object]]:
    """The breakout rows with overlapping phrases merged (see the module); other kinds and
    the order untouched."""
    phrases = [
        Phrase(i, r["category_id"] if isinstance(r["category_id"], str) else None,
               tuple(str(r["idea"]).split()), tuple(str(e) for e in _ids(r["evidence"])))
        for i, r in enumerate(rows) if r["kind"] == "phrase"
    ]
    fate = merge(phrases, caption_of)
    out: list[dict[str, object]] = []
    for i, r in enumerate(rows):
        if i not in fate:
            out.append(dict(r))
            continue
        became = fate[i]
        if became is not None:
            out.append({**r, "idea": " ".join(became[0]), "evidence": list(became[1])})
    return out


def _ids(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []
