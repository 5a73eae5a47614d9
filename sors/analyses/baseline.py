"""A post against a group of posts (its creator's, or its niche's): the baseline of each
feature, its percentile, and what stood out (sors.analyses.findings applies them).

Pure functions over feature values (sors.analyses.features). How "what stood out" is chosen
(docs/API.md, Analyses):

1. departure: how far the post is from the creator's other posts on the feature. Numeric:
   |percentile - 50| / 50, and the robust z (distance from the median in scaled MADs) must
   be at least MIN_Z. Category, flag, hour: 1 - the share of the creator's posts with the
   same value (an hour counts as the same within one hour).
2. separation: whether that value is what tells the creator's outliers (score >= OUTLIER_SCORE)
   from their ordinary posts: the share of outliers on the post's side minus the share of
   ordinary posts on it (numeric: the same side of the creator's median; others: the
   same value). It needs MIN_OUTLIERS outliers and MIN_ORDINARY ordinary posts.
3. A feature stands out when departure >= MIN_DEPARTURE and separation >= MIN_SEPARATION;
   the strongest (departure x separation) MAX_STOOD_OUT are kept. A post like the others
   departs on nothing, so nothing is said about it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sors.analyses.features import FeatureSpec, FeatureValue
from sors.catalog.models import OUTLIER_MIN_SCORE as OUTLIER_SCORE
from sors.catalog.records.analysis_schemas import Baseline, FeatureOut, GroupShare

MIN_OUTLIERS = 2
MIN_ORDINARY = 3
MIN_DEPARTURE = 0.5
MIN_SEPARATION = 0.5
MIN_Z = 1.5
MAX_STOOD_OUT = 3
_MAD_SCALE = 1.4826  # MAD to standard deviation for normal data


@dataclass(frozen=True)
class Peer:
    """A post compared with this one (the creator's, or a similar creator's): its feature
    values, how each was measured, its outlier score and its creator."""

    post_id: str
    values: dict[str, FeatureValue]
    score: float | None
    measured: dict[str, str] = field(default_factory=dict)
    profile_id: str = ""

    @property
    def outlier(self) -> bool:
        return self.score is not None and self.score >= OUTLIER_SCORE


@dataclass(frozen=True)
class Standout:
    """A feature that stood out: where the post is against the creator's usual, and how the
    creator's outliers and ordinary posts share its value."""

    feature: FeatureOut
    outliers: GroupShare
    ordinary: GroupShare
    strength: float  # departure x separation


@dataclass(frozen=True)
class Found:
    baseline: Baseline
    percentile: float | None
    departure: float
    side: Callable[[list[Peer]], float]  # the share of a group on the post's side


def num(v: FeatureValue) -> float:
    assert v is not None and not isinstance(v, str)
    return float(v)


def same_value(spec: FeatureSpec, a: FeatureValue, b: FeatureValue) -> bool:
    if spec.kind == "hour":
        d = abs(int(num(a)) - int(num(b))) % 24
        return min(d, 24 - d) <= 1
    return bool(a == b)


def percentile(value: float, others: Sequence[float]) -> float:
    """The share of `others` below `value` (ties count half), in percent."""
    below = sum(1 for x in others if x < value)
    ties = sum(1 for x in others if x == value)
    return round(100.0 * (below + 0.5 * ties) / len(others), 1)


def robust_spread(values: Sequence[float]) -> float:
    med = statistics.median(values)
    mad = statistics.median(abs(x - med) for x in values)
    return round(_MAD_SCALE * mad, 3)


def numeric(spec: FeatureSpec, value: FeatureValue, peers: list[Peer]) -> Found:
    xs = [num(p.values[spec.name]) for p in peers]
    v = num(value)
    med = statistics.median(xs)
    spread = robust_spread(xs)
    z = (v - med) / spread if spread > 0 else (0.0 if v == med else float("inf"))
    pct = percentile(v, xs)
    departure = abs(pct - 50.0) / 50.0 if abs(z) >= MIN_Z else 0.0
    above = v > med

    def side(group: list[Peer]) -> float:
        on = [p for p in group if (num(p.values[spec.name]) > med) == above]
        return len(on) / len(group)

    baseline = Baseline(median=round(med, 2), spread=spread, postCount=len(xs))
    return Found(baseline, pct, departure, side)


def categorical(spec: FeatureSpec, value: FeatureValue, peers: list[Peer]) -> Found:
    vals = [p.values[spec.name] for p in peers]
    share = sum(1 for x in vals if same_value(spec, x, value)) / len(vals)
    usual = max(set(vals), key=lambda x: (vals.count(x), str(x)))

    def side(group: list[Peer]) -> float:
        return sum(1 for p in group if same_value(spec, p.values[spec.name], value)) / len(group)

    baseline = Baseline(usual=usual, share=round(share, 3), postCount=len(vals))
    return Found(baseline, None, 1.0 - share, side)
