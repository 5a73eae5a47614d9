"""Believable handles for seeding a demo world.

Handles are built from first names, last names and the niche stems that `niche_for_handle`
recognises, so most seeded accounts announce their niche the way real creators do
("mia.bakes", "yogawithleo"). Only stable handles are returned: none starting with "ghost",
none that will be renamed or are a rename target, so a seeded profile never vanishes from
under the demo.
"""

from __future__ import annotations

from collections.abc import Callable

from sors.platforms.base import Platform
from sors.platforms.handles import InvalidHandle, normalize_handle
from sors.platforms.sim import content
from sors.platforms.sim.rng import Rng, stable_int

_PLATFORM_WEIGHTS: tuple[tuple[Platform, float], ...] = (
    ("tiktok", 0.4),
    ("instagram", 0.35),
    ("youtube", 0.25),
)
# {f} first name, {l} last name, {s} niche stem, {n} a number.
_PATTERNS = (
    "{f}.{s}", "{s}with{f}", "{f}{s}", "the{s}{f}", "{s}by{f}", "{f}_{s}", "{s}.{f}",
    "{f}.{l}", "{s}{f}{n}", "{f}{s}{n}", "{f}{l}", "{s}_{f}_{l}", "{f}.does.{s}",
    "real{f}{s}", "{s}daily", "{f}{l}{n}",
)  # fmt: skip


def sample_handles(
    is_stable: Callable[[Platform, str], bool], n: int, *, seed: int
) -> list[tuple[Platform, str]]:
    """`n` distinct (platform, handle) pairs, the same for the same seed and n.

    A longer list starts with the shorter one, so growing a demo world keeps its profiles.
    """
    rng = Rng(stable_int(seed, "sample-handles"))
    platforms = [p for p, _ in _PLATFORM_WEIGHTS]
    weights = [w for _, w in _PLATFORM_WEIGHTS]
    seen: set[tuple[str, str]] = set()
    out: list[tuple[Platform, str]] = []
    attempts = 0
    while len(out) < n:
        attempts += 1
        if attempts > 50 * n + 1000:
            raise ValueError(f"Cannot make {n} distinct handles; ask for fewer.")
        platform = rng.weighted(platforms, weights)
        handle = draw_handle(rng, platform)
        if handle is None:
            continue  # too long for the platform; draw again
        if (platform, handle) in seen or not is_stable(platform, handle):
            continue
        seen.add((platform, handle))
        out.append((platform, handle))
    return out


def draw_handle(rng: Rng, platform: Platform, niche_id: str | None = None) -> str | None:
    """One believable handle for `platform` (about `niche_id`, else a random niche), or None
    when the draw is not a valid handle there."""
    niches = content.niches()
    stem = rng.choice(niches[niche_id or rng.choice(content.niche_ids())].stems)
    raw = rng.choice(_PATTERNS).format(
        f=rng.choice(content.FIRST_NAMES),
        l=rng.choice(content.LAST_NAMES),
        s=stem,
        n=rng.randint(1, 99),
    )
    if platform == "youtube" and rng.chance(0.3):
        raw = raw.replace(".", "-")  # YouTube handles often use dashes instead
    try:
        return normalize_handle(platform, raw)
    except InvalidHandle:
        return None
