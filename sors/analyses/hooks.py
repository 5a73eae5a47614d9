"""Hook types, recognised by rules from the hook's words (speech and first-scene text).

A hook is what it opens with: the rule whose match starts earliest in the hook names its
type ("Three things about how to budget" is a list), and at the same place the rule listed
first wins, so a hook that is both a how-to and a question ("How to sleep better?") is a
how-to. `other` is a hook none of the rules recognise.
"""

from __future__ import annotations

import re
from typing import Literal

HookType = Literal[
    "how_to",
    "number_list",
    "question",
    "challenge",
    "story",
    "reveal",
    "contrarian",
    "bold_claim",
    "direct_address",
    "other",
]
HOOK_TYPES: tuple[HookType, ...] = (
    "how_to",
    "number_list",
    "question",
    "challenge",
    "story",
    "reveal",
    "contrarian",
    "bold_claim",
    "direct_address",
    "other",
)
HOOK_LABELS: dict[str, str] = {
    "how_to": "how-to",
    "number_list": "number or list",
    "question": "question",
    "challenge": "challenge or test",
    "story": "story",
    "reveal": "reveal",
    "contrarian": "contrarian",
    "bold_claim": "bold claim",
    "direct_address": "direct address",
    "other": "other",
}

_NUMBER_WORDS = (
    "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a few"
)
_LIST_NOUNS = (
    "habits|ways|tips|things|mistakes|steps|reasons|rules|ideas|hacks|tricks|signs|secrets"
    "|lessons|foods|meals|apps|tools|books|exercises|moves|days|minutes|products"
)

# (type, pattern over the lower-cased hook); the first match wins.
_RULES: tuple[tuple[HookType, re.Pattern[str]], ...] = (
    ("how_to", re.compile(
        r"\bhow to\b|\bhow i\b|\bhere'?s how\b|\bthis is how\b|\bstep by step\b"
        r"|\btutorial\b|\bthe easy way to\b|\blearn to\b"
    )),
    ("number_list", re.compile(
        rf"\b(?:\d+|{_NUMBER_WORDS})\s+(?:\w+\s+)?(?:{_LIST_NOUNS})\b|\btop \d+\b"
    )),
    ("question", re.compile(
        r"\?|^(?:what|why|who|which|where|did you|do you|have you|are you|is it|is this"
        r"|can you|could you|would you|should you|ever wonder(?:ed)?)\b"
    )),
    ("challenge", re.compile(
        r"\bi tried\b|\bi tested\b|\bi'?m testing\b|^challenge\b|\bi took the\b"
        r"|\bfor \d+ days straight\b|\blet'?s see if\b|^can i\b"
    )),
    ("story", re.compile(
        r"\bstory ?time\b|^when i\b|\bthe day i\b|\blast (?:week|year|month|night) i\b"
        r"|^i was\b|^so yesterday\b|^years ago\b|\bi used to\b"
    )),
    ("reveal", re.compile(
        r"\bsecret\b|\brevealed?\b|\bnobody tells you\b|\bno one tells you\b"
        r"|\bthe truth about\b|\bwait for it\b|\bwatch (?:until|till) the end\b"
        r"|\bwhat (?:they|nobody) (?:don'?t|won'?t)\b|\bbehind the scenes\b"
    )),
    ("contrarian", re.compile(
        r"^stop\b|\bunpopular opinion\b|\boverrated\b|\bmyth\b|\byou'?re doing it wrong\b"
        r"|\bis a lie\b|\bnobody explains\b|\beveryone is wrong\b|^don'?t\b|\bquit\b"
    )),
    ("bold_claim", re.compile(
        r"\bchanged my\b|\bforever\b|\bthe only\b|\bthe best\b|\bgame ?changer\b"
        r"|\bguaranteed\b|\bthe biggest\b|\bthe fastest\b|\bnever again\b|\blife-?changing\b"
    )),
    ("direct_address", re.compile(
        r"^(?:you|your|if you|hey|pov|this is for you|let'?s talk|you asked)\b"
        r"|\bthis is for (?:you|anyone)\b"
    )),
)


def classify_hook(text: str) -> HookType:
    """The hook's type by the first rule its words match; `other` when none does."""
    t = " ".join(text.lower().replace("’", "'").split())
    if not t:
        return "other"
    best: tuple[int, int] | None = None  # (where it matched, rule order)
    for order, (_, pattern) in enumerate(_RULES):
        m = pattern.search(t)
        if m and (best is None or (m.start(), order) < best):
            best = (m.start(), order)
    return "other" if best is None else _RULES[best[1]][0]
