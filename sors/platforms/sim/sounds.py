"""Sounds in the simulated world: most posts use their own audio; a few trending sounds are
adopted across the creators of one to three niches along a known lifecycle.

Which posts carry a sound: TikTok videos and slideshows, Instagram reels (what the sources
show a sound for). A post's sound is drawn from its own hash, apart from everything else
about it, so captions, scripts and views do not depend on it.

Trending sounds are a catalogue per (world seed, platform): sound k launches at
`START + k × SPACING` (jittered), in one to three top-level niches, and d days after its
launch is used by a share of those niches' sound-carrying posts that rises and falls
smoothly, as adoption does:

    share(d) = A · (d/T)^k · e^(k · (1 − d/T))

A the peak share (10-30 %), T the days to the peak (14-24), k the shape (3-5: the larger,
the sharper the peak); it is gone once the share falls under 2 % of the peak after it.

The lifecycle stage at a moment (`stage_at`, the truth docs/PERFORMANCE.md measures the
API's stages against), from the share against the peak: `emerging` under 15 % of it on the
way up, `rising` from 15 % to 80 % on the way up, `peaking` at 80 % or more (both sides of
the peak), `fading` under 80 % after it, until it is gone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from sors.platforms.base import SoundRef
from sors.platforms.sim.accounts import EPOCH_TS, Account
from sors.platforms.sim.rng import stable_digest, stable_int, unit_floats

DAY = 86_400.0
START = EPOCH_TS - 500 * DAY  # the first trending sound's launch
SPACING = 3.5 * DAY  # between launches, per platform
TO_PEAK = (14.0, 24.0)  # days
SHAPE = (3.0, 5.0)
PEAK_SHARE = (0.10, 0.30)
GONE = 0.02  # share of the peak below which it ends, after the peak
EMERGING, NEAR_PEAK = 0.25, 0.8
MAX_LIFE_DAYS = 4.0 * TO_PEAK[1]
_U64 = float(1 << 64)
# Of the sound-carrying posts of a niche, at most this share use trending sounds.
MAX_TRENDING = 0.9
CARRIES_SOUND = frozenset({("tiktok", "video"), ("tiktok", "slideshow"),
                           ("instagram", "reel")})
NICHES = ("beauty", "comedy", "education", "fashion", "finance", "fitness", "food",
          "gaming", "pets", "tech", "travel")

_WORDS = (
    "Golden", "Midnight", "Velvet", "Neon", "Summer", "Paper", "Electric", "Slow", "Silver",
    "Wild", "Lucky", "Honey", "Blue", "Broken", "Sunday", "Crystal", "Ocean", "Lost",
    "Dream", "Fire", "Hour", "Drive", "Motion", "Echo", "Garden", "Heart", "Rain", "Lights",
    "Wave", "Signal", "Mirror", "Bloom", "Skyline", "Rhythm", "Static", "Glow",
)  # fmt: skip
_ARTISTS = (
    "ZHRMusic", "Lune Atlas", "The Midnight Club", "Kairo", "Sol Rivera", "MOTEL 9",
    "Ivy Banks", "Nomad Sounds", "Aurora Lane", "DJ Pablo K", "Sakura Girl", "Monoform",
    "Coastline", "Bryn Adler", "Otto Vale", "Pixel Hearts",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TrendingSound:
    platform: str
    index: int
    sound_id: str  # the platform's id, as its sources give it
    title: str
    author: str
    niches: tuple[str, ...]  # top-level niches that adopt it
    launch: float  # epoch seconds
    to_peak: float  # days
    shape: float
    peak: float  # share of the niches' sound-carrying posts at its peak

    def level(self, days: float) -> float:
        """Its share at `days` after launch, as a fraction of its peak share."""
        if days <= 0:
            return 0.0
        x = days / self.to_peak
        g = x**self.shape * math.exp(self.shape * (1.0 - x))
        return g if x <= 1.0 or g >= GONE else 0.0

    def share(self, days: float) -> float:
        """The share of its niches' sound-carrying posts using it, `days` after launch."""
        return self.peak * self.level(days)

    def stage_at(self, at: float) -> str | None:
        """The lifecycle stage at epoch second `at` (see the module); None when not in use."""
        d = (at - self.launch) / DAY
        g = self.level(d)
        if g == 0.0:
            return None
        if g >= NEAR_PEAK:
            return "peaking"
        if d < self.to_peak:
            return "emerging" if g < EMERGING else "rising"
        return "fading"


def _digits(n: int, width: int) -> str:
    return str(n % 10**width).rjust(width, "0")


@cache
def trending(seed: int, platform: str, k: int) -> TrendingSound:
    u = unit_floats(seed, "trending-sound", platform, k, count=8)
    words = f"{_WORDS[int(u[0] * len(_WORDS))]} {_WORDS[int(u[1] * len(_WORDS))]}"
    first = NICHES[int(u[2] * len(NICHES))]
    second = NICHES[int(u[3] * len(NICHES))]
    third = NICHES[int(((u[4] * 13.1) % 1.0) * len(NICHES))]
    picked = (first,) if u[4] < 0.4 else (first, second) if u[4] < 0.8 else (first, second, third)
    niches = tuple(sorted(set(picked)))
    n = stable_int(seed, "trending-sound-id", platform, k)
    sound_id = "7" + _digits(n, 18) if platform == "tiktok" else "1" + _digits(n, 15)
    return TrendingSound(
        platform=platform, index=k, sound_id=sound_id, title=words,
        author=_ARTISTS[int(u[5] * len(_ARTISTS))], niches=niches,
        launch=START + (k + 0.8 * u[6]) * SPACING,
        to_peak=TO_PEAK[0] + (TO_PEAK[1] - TO_PEAK[0]) * u[7],
        shape=SHAPE[0] + (SHAPE[1] - SHAPE[0]) * ((u[6] * 7.3) % 1.0),
        peak=PEAK_SHARE[0] + (PEAK_SHARE[1] - PEAK_SHARE[0]) * ((u[0] * 11.7) % 1.0),
    )


def launched_between(seed: int, platform: str, start: float, end: float) -> list[TrendingSound]:
    """The trending sounds of a platform launched in [start, end), in launch order."""
    first = max(0, math.floor((start - START) / SPACING) - 1)
    last = math.floor((end - START) / SPACING) + 1
    return [s for k in range(first, last + 1)
            if start <= (s := trending(seed, platform, k)).launch < end]


@cache
def _in_use(seed: int, platform: str, niche: str, day: int) -> tuple[tuple[float, int], ...]:
    """(cumulative share, sound index) of the trending sounds a niche uses on a day (its
    share at the day's middle), capped at MAX_TRENDING."""
    mid = (day + 0.5) * DAY
    out: list[tuple[float, int]] = []
    total = 0.0
    for s in launched_between(seed, platform, mid - MAX_LIFE_DAYS * DAY, mid):
        if niche not in s.niches:
            continue
        total = min(MAX_TRENDING, total + s.share((mid - s.launch) / DAY))
        out.append((total, s.index))
    return tuple(out)


def sound_of(a: Account, content_type: str, post_seed: int, published: int,
             post_id: str) -> SoundRef | None:
    """The sound of a post (None for a post whose platform shows none)."""
    if (a.platform, content_type) not in CARRIES_SOUND:
        return None
    raw = stable_digest(post_seed, "sound", size=16)
    u = int.from_bytes(raw[:8], "big") / _U64
    niche = a.niche.id.split(".", 1)[0]
    for cumulative, k in _in_use(a.seed, a.platform, niche, math.floor(published / DAY)):
        if u < cumulative:
            s = trending(a.seed, a.platform, k)
            return SoundRef(s.sound_id, s.title, s.author, False)
    n = int.from_bytes(raw[8:], "big")
    if a.platform == "tiktok":
        return SoundRef("7" + _digits(n, 18), f"original sound - {a.display_name}",
                        a.display_name, True)
    return SoundRef("1" + _digits(n, 15), "Original audio", a.root, True)


def by_id(seed: int, platform: str, sound_id: str, around: float) -> TrendingSound | None:
    """The trending sound with this id among those launched within a year of `around`."""
    for s in launched_between(seed, platform, around - 365 * DAY, around + 30 * DAY):
        if s.sound_id == sound_id:
            return s
    return None
