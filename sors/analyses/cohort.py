"""The niche a post is compared with when its creator's own posts are not enough: posts of
similar creators — the creator's first niche, followers within a band around theirs, on the
same platform — published at a similar age, widened step by step until there are enough
posts and outliers to compare with (docs/API.md, "The comparison").

Pure helpers: the bands, their rounding and the steps; the query is in the repository.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sors.platforms import taxonomy

NICHE_LIMIT = 1500  # posts read for one comparison (a stable sample of the niche)
MIN_NICHE_POSTS = 30
MIN_NICHE_OUTLIERS = 3
MIN_AGE_SPAN_DAYS = 3.0
_NICE = (1.0, 2.0, 5.0)


@dataclass(frozen=True)
class NicheStep:
    category_id: str
    followers: tuple[int, int] | None  # None: any size
    age_days: tuple[float, float]


def nice_floor(x: float) -> int:
    """The largest of 1, 2, 5 × 10^k at or below x (0 below 1)."""
    if x < 1:
        return 0
    exp = 10 ** math.floor(math.log10(x))
    return int(max(m * exp for m in _NICE if m * exp <= x))


def nice_ceil(x: float) -> int:
    """The smallest of 1, 2, 5 × 10^k at or above x."""
    if x <= 1:
        return 1
    exp = 10 ** math.floor(math.log10(x))
    for m in (*_NICE, 10.0):
        if m * exp >= x:
            return int(m * exp)
    return int(10 * exp)  # pragma: no cover - the loop always returns


def follower_band(followers: int, factor: float) -> tuple[int, int]:
    """Followers within `factor` of the creator's, rounded outwards to round numbers
    (100K, factor 2: 50K-200K)."""
    return nice_floor(followers / factor), nice_ceil(followers * factor)


def age_band(age_days: float, factor: float) -> tuple[float, float]:
    """Post ages within `factor` of this one's, at least MIN_AGE_SPAN_DAYS each way."""
    lo = max(0.0, min(age_days / factor, age_days - MIN_AGE_SPAN_DAYS))
    hi = max(age_days * factor, age_days + MIN_AGE_SPAN_DAYS)
    return round(lo, 1), round(hi, 1)


def steps(category_id: str, followers: int | None, age_days: float) -> list[NicheStep]:
    """The niches to try, narrowest first."""
    parent = taxonomy.by_id().get(category_id)
    wider = parent.parent_id if parent and parent.parent_id else category_id
    out = []
    if followers:
        out += [NicheStep(category_id, follower_band(followers, 2), age_band(age_days, 2)),
                NicheStep(category_id, follower_band(followers, 4), age_band(age_days, 3))]
        if wider != category_id:
            out.append(NicheStep(wider, follower_band(followers, 4), age_band(age_days, 3)))
    out.append(NicheStep(wider, None, age_band(age_days, 6)))
    return out
