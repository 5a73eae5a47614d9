"""Creators of the simulated world who post in another language than English.

Real catalogs hold captions in Dutch, Spanish, Portuguese and German beside English ones (the
Instagram export of a Dutch team, say), and search by meaning must find them from an English
query about the same thing. So a few creators (FOREIGN_SHARE) of each niche post in one of the
two languages `foreign_captions.txt` holds for their niche: three captions per language and
niche, each post one of them, sometimes closed by the platform's own hashtags.

Whether a creator posts in another language is drawn apart from the account's other draws
(its own hash of seed, platform and handle), and a post's caption from a draw after all the
post's others: the rest of the world stays as it was, and the same seed gives the same world.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from pathlib import Path

from sors.platforms.sim.rng import Rng, stable_int

FOREIGN_SHARE = 0.04
LANGUAGES = ("de", "es", "nl", "pt")
_FILE = Path(__file__).with_name("foreign_captions.txt")
_PLATFORM_TAGS = {"tiktok": "#fyp", "instagram": "#reels", "youtube": "#shorts"}


@cache
def captions() -> dict[tuple[str, str], tuple[str, ...]]:
    """(niche, language) → its captions."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for line in _FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        language, niche, caption = line.split("\t")
        found[(niche, language)].append(caption)
    return {k: tuple(v) for k, v in found.items()}


@cache
def languages_of(niche: str) -> tuple[str, ...]:
    return tuple(sorted(lang for n, lang in captions() if n == niche))


def language_for(seed: int, platform: str, root: str, niche: str) -> str | None:
    """The language the creator posts in, when it is not English."""
    choices = languages_of(niche)
    draw = stable_int(seed, platform, root, "language")
    if not choices or (draw % 1_000_000) / 1_000_000 >= FOREIGN_SHARE:
        return None
    return choices[(draw // 1_000_000) % len(choices)]


def caption(rng: Rng, platform: str, niche: str, language: str) -> str:
    own = captions()[(niche, language)]
    text = own[int(rng.random() * len(own))]
    return f"{text} {_PLATFORM_TAGS[platform]}" if rng.random() < 0.3 else text
