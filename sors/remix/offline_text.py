"""Plain-text tools for the offline remix engine: content words, niche phrases, hooks, asks.

No model and no randomness: the same text always gives the same result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words that never name a topic, plus the filler of short-form speech.
STOPWORDS = frozenset(
    """
    a about above after again against all also always am an and any are aren't around as at
    back be because been before being below between both but by can can't cannot could
    couldn't did didn't do does doesn't doing don't down during each even ever every few for
    from further get gets getting go goes going gonna got had hadn't has hasn't have haven't
    having he he's her here here's hers herself him himself his how how's i i'd i'll i'm i've
    if in into is isn't it it's its itself just know let's like literally look made make
    makes making many me more most much must my myself need never new no nor not now of off
    oh ok okay on once one only or other our ours ourselves out over own really right same
    say see she she's should shouldn't so some something still such sure take than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've thing things this those though through time to today too try trying
    under until up us use used using very want wanna was wasn't watch way we we'd we'll we're
    we've well were weren't what what's when when's where where's which while who who's whom
    why why's will with won't would wouldn't yeah yes yet you you'd you'll you're you've your
    yours yourself yourselves video videos guys everyone people part follow comment comments
    subscribe share save link bio first second third next last best good great little lot
    lots actually basically wait

    """.split()
)

WORD = re.compile(r"[^\W\d_][\w'’-]*")
_HASHTAG = re.compile(r"#(\w+)")
_MENTION = re.compile(r"@[\w.]+")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_NICHE_HEAD_CUT = re.compile(r"\s+(?:for|with|in|on|who|that|about|to|using)\s+", re.I)

_CTA = re.compile(
    r"\b(follow|subscribe|comment|save this|share this|link in (?:my )?bio|"
    r"let me know|tag (?:a|someone)|like (?:and|&) )",
    re.I,
)
_LIST_CUE = re.compile(
    r"^(?:(?:number\s+)?\d+[.):]?\s|first(?:ly)?\b|second(?:ly)?\b|third\b|next\b|"
    r"then\b|finally\b|step\s+\d+|tip\s+\d+|last(?:ly)?\b)",
    re.I,
)


@dataclass(frozen=True)
class Hook:
    kind: str  # question, list, warning, pov, story, curiosity, how-to, statement
    description: str


_HOOKS: list[tuple[str, str, re.Pattern[str]]] = [
    ("pov", "a POV set-up", re.compile(r"^pov\b", re.I)),
    (
        "warning",
        "a warning",
        re.compile(r"^(?:stop|don'?t|never|quit|avoid)\b|\bmistakes?\b", re.I),
    ),
    (
        "list",
        "a numbered promise",
        re.compile(
            r"^\d+\s+[^\W\d]|\b\d+\s+\w*\s*(?:things|ways|tips|reasons|steps|mistakes|hacks|rules)\b",
            re.I,
        ),
    ),
    (
        "curiosity",
        "a curiosity gap",
        re.compile(r"\b(?:nobody|no one|secret|didn'?t know|won'?t believe|wait for it)\b", re.I),
    ),
    ("how-to", "a how-to promise", re.compile(r"\b(?:how to|here'?s how|this is how)\b", re.I)),
    (
        "question",
        "a direct question",
        re.compile(
            r"\?\s*$|^(?:why|how|what|did you|do you|have you|is it|are you|can you)\b", re.I
        ),
    ),
    ("story", "a first-person story", re.compile(r"^(?:i|i'm|i've|my|so i|when i)\b", re.I)),
]


def classify_hook(line: str) -> Hook:
    text = line.strip()
    for kind, description, pattern in _HOOKS:
        if pattern.search(text):
            return Hook(kind, description)
    return Hook("statement", "a bold statement")


def has_cta(line: str) -> bool:
    return bool(_CTA.search(line))


def is_list_step(line: str) -> bool:
    return bool(_LIST_CUE.match(line.strip()))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s.strip()]


def strip_tags(text: str) -> str:
    """Caption text without hashtags and mentions, whitespace collapsed."""
    text = _MENTION.sub("", _HASHTAG.sub("", text or ""))
    return re.sub(r"\s+", " ", text).strip()


def hashtags(text: str) -> list[str]:
    return [t.lower() for t in _HASHTAG.findall(text or "")]


def content_words(text: str) -> list[str]:
    words = [w.strip("'’-").lower() for w in WORD.findall(text or "")]
    return [w for w in words if len(w) >= 3 and w not in STOPWORDS]


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Niche:
    full: str  # as the caller wrote it
    core: str  # the head noun phrase, for swapping into sentences
    terms: list[str]  # its content words, for hashtags

    @property
    def hashtags(self) -> list[str]:
        tags = ["".join(self.core.lower().split())]
        tags += [t for t in self.terms if len(t) >= 5 and t not in tags]
        return [re.sub(r"\W", "", t) for t in tags if re.sub(r"\W", "", t)][:4]


def parse_niche(target_niche: str) -> Niche:
    full = " ".join(target_niche.split())
    first_clause = re.split(r"[,.;:!?()\n]|\s[-–—]\s", full, maxsplit=1)[0].strip() or full
    head = _NICHE_HEAD_CUT.split(first_clause, maxsplit=1)[0].strip() or first_clause
    head = re.sub(r"^(?:the|a|an)\s+", "", head, flags=re.I)
    words = head.split()
    core = " ".join(words[:4]) if words else full[:40]
    return Niche(full=full, core=core, terms=content_words(full)[:6])


def mentions(text: str, phrase: str) -> bool:
    return phrase.lower() in text.lower()


def shorten(text: str, max_words: int, max_chars: int = 120) -> str:
    words = text.split()
    out = " ".join(words[:max_words])
    if len(out) > max_chars:
        out = out[:max_chars].rsplit(" ", 1)[0]
    out = out.rstrip(",;:-–— ")
    return out + ("…" if len(words) > max_words or len(out) < len(text.strip()) else "")


def human_count(n: int | None) -> str:
    if n is None:
        return "an unknown number of"
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "K")):
        if n >= size:
            value = f"{n / size:.1f}".rstrip("0").rstrip(".")
            return f"{value}{suffix}"
    return str(n)
