"""A sound's lifecycle stage from its usage counts (docs/API.md, "Sounds"). Pure.

Counted over complete UTC days of publication, the day of the request left out: `last3` =
its uses in the last 3 days, `prior4` = in the 4 days before them, `week` = the last 7 days
(the two together), `previous` = the 7 days before, `peak` = the most in any 7 consecutive
days so far (of the rollup's last 70 days), `share` = `week` over all posts of its
platform in the niche (or, without one, in the niches it was used in) that week.

    growing    last3 ≥ MIN_USES, its daily rate at least GROWING × prior4's, and
               week ≥ WEEK_GROWING × previous: usage that has just multiplied
    emerging   growing, share < BASE (a small base)
    rising     growing, share ≥ BASE
    peaking    not growing, week ≥ NEAR_PEAK × peak
    fading     the rest (its week under NEAR_PEAK of its best, or no use this week)

The thresholds were chosen on the benchmark world (seed 2026) and measured on the demo's
(seed 0) against the simulated adoption curves (docs/PERFORMANCE.md, "Sound stages").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Stage = Literal["emerging", "rising", "peaking", "fading"]
STAGES: tuple[Stage, ...] = ("emerging", "rising", "peaking", "fading")

GROWING = 3.0
WEEK_GROWING = 1.5
MIN_USES = 2
BASE = 0.01
NEAR_PEAK = 0.8
WEEK_DAYS = 7
RECENT_DAYS = 3


@dataclass(frozen=True, slots=True)
class Usage:
    last3: int
    prior4: int
    previous: int
    peak: int
    niche_posts: int  # the week's posts of the platform in the niche(s)

    @property
    def week(self) -> int:
        return self.last3 + self.prior4

    @property
    def share(self) -> float:
        return self.week / self.niche_posts if self.niche_posts else 0.0


def stage(u: Usage) -> Stage:
    peak = max(u.peak, u.week)
    growing = (u.last3 >= MIN_USES and u.last3 * (WEEK_DAYS - RECENT_DAYS)
               >= GROWING * RECENT_DAYS * u.prior4 and u.week >= WEEK_GROWING * u.previous)
    if growing:
        return "rising" if u.share >= BASE else "emerging"
    if u.week > 0 and u.week >= NEAR_PEAK * peak:
        return "peaking"
    return "fading"
