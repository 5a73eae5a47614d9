"""Words for the simulated world: niches, names, bios, captions, scripts and slides.

Every function takes an `Rng` and draws from it in a fixed order, so the same seed always
gives the same text. The niche texts live in two data modules; this one turns them into
believable sentences.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from itertools import permutations

from sors.platforms.sim.niches_knowledge import KNOWLEDGE
from sors.platforms.sim.niches_lifestyle import LIFESTYLE
from sors.platforms.sim.rng import Rng
from sors.platforms.taxonomy import by_id


@dataclass(frozen=True, slots=True)
class Niche:
    id: str  # a leaf id of the taxonomy
    name: str
    bios: tuple[str, ...]
    topics: tuple[str, ...]
    tips: tuple[str, ...]
    tags: tuple[str, ...]
    stems: tuple[str, ...]
    # Precomputed for the hot path: capitalised topics, every ordered choice of 1-3
    # distinct hashtags as the text that ends a caption, outros naming the niche.
    topics_cap: tuple[str, ...]
    tag_strings: tuple[str, ...]
    outros: tuple[str, ...]


@cache
def niches() -> dict[str, Niche]:
    cats = by_id()
    out = {}
    for leaf_id, d in sorted({**LIFESTYLE, **KNOWLEDGE}.items()):
        out[leaf_id] = Niche(
            id=leaf_id,
            name=cats[leaf_id].name,
            bios=d["bio"],
            topics=d["topics"],
            tips=d["tips"],
            tags=d["tags"],
            stems=d["stems"],
            topics_cap=tuple(_cap(t) for t in d["topics"]),
            tag_strings=_hashtag_strings(d["tags"], 1, 3),
            outros=tuple(o.format(name=cats[leaf_id].name.lower()) for o in _OUTROS),
        )
    return out


def _hashtag_strings(tags: tuple[str, ...], least: int, most: int) -> tuple[str, ...]:
    combos = (p for k in range(least, most + 1) for p in permutations(tags, k))
    return tuple(" ".join("#" + t for t in combo) for combo in combos)


@cache
def niche_ids() -> tuple[str, ...]:
    return tuple(niches())


# ---- niche from a handle ----------------------------------------------------------------

_SEGMENT_SPLIT = re.compile(r"[._\-0-9]+")
_MIN_SUBSTRING_STEM = 4  # shorter stems ("cat", "ai") hide inside unrelated words


@cache
def _stems_longest_first() -> tuple[tuple[str, str], ...]:
    pairs = {(stem, n.id) for n in niches().values() for stem in n.stems}
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0], p[1])))


def niche_for_handle(handle: str) -> str | None:
    """The niche a handle announces ("yoga.with.mia" -> fitness.yoga), if any.

    Long stems match anywhere; short ones only as a whole segment between separators, so
    "education" is not about cats.
    """
    segments = set(_SEGMENT_SPLIT.split(handle))
    for stem, niche_id in _stems_longest_first():
        if len(stem) >= _MIN_SUBSTRING_STEM:
            if stem in handle:
                return niche_id
        elif stem in segments:
            return niche_id
    return None


# ---- people ---------------------------------------------------------------------------

FIRST_NAMES = (
    "anna", "sam", "mia", "leo", "noah", "emma", "liam", "olivia", "ava", "lucas", "zoe",
    "maya", "eli", "nina", "omar", "sara", "jade", "kai", "luna", "max", "ruby", "theo",
    "ivy", "finn", "lena", "amir", "chloe", "jonas", "priya", "diego", "yuki", "aisha",
    "mateo", "elena", "felix", "hana", "ines", "jack", "kira", "marco", "nora", "oscar",
    "paula", "rosa", "tariq", "uma", "vera", "will", "xena", "yara", "zane", "ben", "cleo",
    "dani", "erin", "gabe", "hugo", "iris", "jun", "kate", "lola", "milo", "nico", "pia",
    "remy", "sofia", "tom", "vik", "wren", "alex", "bea", "cora", "dev", "ezra", "gia",
)  # fmt: skip
LAST_NAMES = (
    "park", "silva", "novak", "kim", "garcia", "muller", "rossi", "nguyen", "smith", "cohen",
    "okafor", "haddad", "ivanova", "tanaka", "lopez", "berg", "moreau", "singh", "walsh",
    "costa", "lindqvist", "mensah", "reyes", "fischer", "ali", "brown", "duarte", "sato",
)  # fmt: skip

_PART_SPLIT = re.compile(r"[._\-]+|(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])")


_FILLERS = ("with", "does", "real", "daily", "the", "by")
_SEPARATORS = frozenset("._-0123456789")


@cache
def _pieces() -> tuple[str, ...]:
    """What a handle is assembled from (see sim/handles.py), besides separators."""
    return (*_FILLERS, *(stem for stem, _ in _stems_longest_first()), *FIRST_NAMES, *LAST_NAMES)


def _edge_before(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] in _SEPARATORS or any(text[:at].endswith(p) for p in _pieces())


def _edge_after(text: str, at: int) -> bool:
    return at == len(text) or text[at] in _SEPARATORS or text.startswith(_pieces(), at)


def _name_in(text: str, names: tuple[str, ...]) -> str | None:
    """The name of `names` that `text` is most plainly made of: one that starts and ends
    where a piece of the handle does ("skatewithleo" is Leo, not Kate), longest first."""
    best: tuple[int, int, int, str] | None = None
    for name in names:
        at = text.find(name)
        while at >= 0:
            edges = _edge_before(text, at) + _edge_after(text, at + len(name))
            cand = (edges, len(name), -at, name)
            if edges and (best is None or cand > best):
                best = cand
            at = text.find(name, at + 1)
    return None if best is None else best[3]


def names_in_handle(handle: str) -> tuple[str | None, str | None]:
    """The first and last name a handle is made of, if any."""
    text = handle.lower()
    first = _name_in(text, FIRST_NAMES)
    last = _name_in(text.replace(first, "." * len(first), 1) if first else text, LAST_NAMES)
    return first, last


def display_name(rng: Rng, handle: str, niche: Niche) -> str:
    """A name the same person behind `handle` would show: the names the handle is made of,
    else drawn ones (a brand-like handle has a person behind it too)."""
    style = rng.random()
    first = rng.choice(FIRST_NAMES).title()
    last = rng.choice(LAST_NAMES).title()  # drawn even when unused: the draws after it stay
    in_first, in_last = names_in_handle(handle)
    first = (in_first or first).title()
    last = (in_last or last).title()
    if style < 0.45:
        # Most creators simply show their handle, tidied up.
        parts = [p for p in _PART_SPLIT.split(handle) if p and not p.isdigit()]
        return " ".join(p.title() for p in parts) or handle
    if style < 0.75:
        return f"{first} {last}"
    if style < 0.9:
        return f"{first} | {niche.name}"
    return f"{first} {last[0]}."


_BIO_EXTRAS = (
    "New videos every {day}",
    "Collabs: DM me",
    "Based in {city}",
    "{city} ✈︎ everywhere",
    "Posting daily",
    "Business: see link",
    "Join 10k+ others on the newsletter",
)  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Sunday")
_CITIES = (
    "Lisbon", "Austin", "Berlin", "Toronto", "Melbourne", "Mexico City", "Seoul", "Lagos",
    "Manchester", "Montréal", "São Paulo", "Bogotá", "Kraków", "Osaka", "Denver", "Dublin",
)  # fmt: skip


def bio(rng: Rng, niche: Niche) -> str:
    line = rng.choice(niche.bios)
    extra = rng.choice(_BIO_EXTRAS).format(day=rng.choice(_DAYS), city=rng.choice(_CITIES))
    return f"{line} | {extra}"


# ---- posts ----------------------------------------------------------------------------

# "{t}" is the topic, "{T}" the topic capitalised, "{n}" a small number. No template may
# use a taxonomy keyword, or every niche would drift towards that category.
_CAPTION_TEMPLATES = (
    "{T} 🔥", "Trying {t} for 30 days", "My honest take on {t}",
    "{T}: what nobody tells you", "Day {n} of {t}", "{T} in under a minute",
    "Everything I know about {t}", "Rating {t} honestly", "{T} (part {n})",
    "Beginner's guide to {t}", "Stop scrolling: {t}", "I tried {t} so you don't have to",
    "{T}, the easy way", "You asked for {t}", "Save this: {t}", "{T} ✨ small wins",
)  # fmt: skip
_PLATFORM_TAGS = {
    ("tiktok", "video"): ("fyp", "foryou", "viral"),
    ("tiktok", "slideshow"): ("fyp", "photomode", "carousel"),
    ("instagram", "reel"): ("reels", "reelsinstagram", "explorepage"),
    ("instagram", "image"): ("instadaily", "photooftheday"),
    ("instagram", "carousel"): ("swipe", "savethis"),
    ("youtube", "short"): ("shorts",),
    ("youtube", "video"): (),
    ("youtube", "live"): ("live",),
}
# The platform's own hashtags close a caption: none, one or two of them.
_PLATFORM_TAG_STRINGS = {
    key: ("", *_hashtag_strings(tags, 1, 2)) for key, tags in _PLATFORM_TAGS.items()
}
# Hooks by type (the types docs/API.md lists), with the share each has among ordinary posts.
# Outliers lean on two types per niche (`leaning_hook_types`): what works differs by audience.
HOOK_TEMPLATES: dict[str, tuple[str, ...]] = {
    # Short enough to say within a short video's first scene, whatever the topic.
    "how_to": ("Here's how I do {t}.", "This is how I do {t}."),
    "number_list": ("Three tips for {t}.", "Five mistakes with {t}."),
    "direct_address": ("You asked for {t}.", "POV: you love {t}."),
    "question": ("Did you know this about {t}?", "Why is {t} so hard?"),
    "bold_claim": ("This changed my {t} forever.", "The best {t} advice ever."),
    "story": ("Last week I gave up on {t}.", "Story time: {t}."),
    "challenge": ("I tried {t} for a week.", "I tested {t} for you."),
    "reveal": ("The secret to {t}.", "The truth about {t}."),
    "contrarian": ("Stop doing {t} wrong.", "Unpopular opinion: {t}."),
}  # fmt: skip
HOOK_SHARES: dict[str, float] = {
    "how_to": 0.2, "number_list": 0.15, "direct_address": 0.15, "question": 0.12,
    "bold_claim": 0.1, "story": 0.08, "challenge": 0.08, "reveal": 0.06, "contrarian": 0.06,
}  # fmt: skip
# How often an outlier opens with one of its niche's two leaning types.
OUTLIER_LEAN = 0.7


@cache
def leaning_hook_types(niche_id: str) -> tuple[str, str]:
    """The two hook types a niche's outliers lean on (fixed by the niche's id)."""
    types = sorted(HOOK_SHARES)
    h = int.from_bytes(hashlib.blake2b(niche_id.encode(), digest_size=4).digest(), "big")
    first = types[h % len(types)]
    rest = [t for t in types if t != first]
    return first, rest[(h // len(types)) % len(rest)]


def _pick(weights: dict[str, float], u: float) -> tuple[str, float]:
    """The type at uniform draw `u` over `weights`, and where `u` fell inside it (0-1)."""
    total = sum(weights.values())
    at = 0.0
    kind = ""
    for kind, w in weights.items():
        share = w / total
        if u < at + share:
            return kind, (u - at) / share
        at += share
    return kind, 0.999


def hook_line(u: float, niche: Niche, topic: str, *, outlier: bool) -> tuple[str, str]:
    """(hook type, spoken hook) from one uniform draw: an outlier leans on its niche's
    types, an ordinary post follows HOOK_SHARES."""
    if outlier and u < OUTLIER_LEAN:
        kind, rest = _pick({t: 1.0 for t in leaning_hook_types(niche.id)}, u / OUTLIER_LEAN)
    else:
        rest_u = (u - OUTLIER_LEAN) / (1 - OUTLIER_LEAN) if outlier else u
        kind, rest = _pick(HOOK_SHARES, rest_u)
    templates = HOOK_TEMPLATES[kind]
    return kind, templates[min(len(templates) - 1, int(rest * len(templates)))].format(t=topic)


_OUTROS = (
    "Follow for more {name} ideas.", "Save this and try it this week.",
    "Tell me in the comments how it went.", "Follow for part two.",
    "Share this with a friend who needs it.",
)  # fmt: skip


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def caption(rng: Rng, platform: str, content_type: str, niche: Niche, topic_index: int) -> str:
    r = rng.random
    text = _CAPTION_TEMPLATES[int(r() * len(_CAPTION_TEMPLATES))].format(
        t=niche.topics[topic_index], T=niche.topics_cap[topic_index], n=2 + int(r() * 29)
    )
    tip = niche.tips[int(r() * len(niche.tips))]
    if platform == "youtube" and content_type == "video":
        # Long-form YouTube captions are titles: no hashtags, sometimes a subtitle.
        return f"{text} | {tip[:-1]}" if r() < 0.4 else text
    if r() < 0.55:
        text = f"{text} {tip}"
    platform_tags = _PLATFORM_TAG_STRINGS[(platform, content_type)]
    tags = niche.tag_strings[int(r() * len(niche.tag_strings))]
    extra = platform_tags[int(r() * len(platform_tags))]
    return f"{text} {tags} {extra}" if extra else f"{text} {tags}"


def script(
    rng: Rng, niche: Niche, topic: str, scenes: int, *, outlier: bool = False
) -> list[str]:
    """One spoken sentence per scene: a hook, tips, an outro (3-6 scenes)."""
    tips = rng.sample(niche.tips, scenes - 2)
    _, hook = hook_line(rng.random(), niche, topic, outlier=outlier)
    outro = rng.choice(niche.outros)
    return [hook, *tips, outro]


def slides(rng: Rng, niche: Niche, topic: str, count: int) -> list[str]:
    """Slide texts: a title slide, then tips. A single image gets title and one tip."""
    if count <= 1:
        return [f"{_cap(topic)}: {rng.choice(niche.tips)}"]
    return [_cap(topic), *rng.sample(niche.tips, count - 1)]
