"""How a simulated post's views grow with age: one of a few documented shapes.

Real posts do not all grow as `final × (1 − exp(−age/τ))`: some take off days late (a second
push), some spike in their first hours and stop, some plateau early, some keep growing for
weeks. An early-detection method must be able to be wrong here, so the world holds decoys
(posts that look like breakouts early and end at a normal level) and late breakouts (posts
that look normal until they take off).

Shares (the shape is drawn per post from its own hash, apart from everything else about it,
so captions, scripts and final views do not depend on it):

    normal posts (96 %)                          outliers (4 %, final 3-50× the normal level)
    standard    70 %  1 − exp(−t/τ)              early breakout  50 %  S-curve, (t/τ)^2
    slow start  12 %  S-curve, (t/τ)^2           late take-off   35 %  normal until T0 (12 h -
    plateau      8 %  1 − exp(−3t/τ)                                   5 d), then the extra
    fading spike 6 %  1 − exp(−t/τs), τs 1.5-6 h,                      views on an S-curve
                      1.3-2.5× the normal final  steady growth   15 %  (t/2τ)^1.3, slow
    second push  4 %  60 % at once, 40 % after
                      T0 (1-5 d) on an S-curve

"S-curve" is the Weibull form 1 − exp(−(t/τ)^k): views per hour rise before they fall, so a
post accelerates in its first hours. Every shape rises monotonically from 0 to its final
value; `final` here is what the post ends with.
"""

from __future__ import annotations

import math
from enum import StrEnum

from sors.platforms.sim.rng import unit_floats

HOUR = 3600.0
DAY = 86_400.0


class Shape(StrEnum):
    STANDARD = "standard"
    SLOW_START = "slow_start"
    PLATEAU = "plateau"
    FADING_SPIKE = "fading_spike"
    SECOND_PUSH = "second_push"
    EARLY_BREAKOUT = "early_breakout"
    LATE_TAKEOFF = "late_takeoff"
    STEADY_GROWTH = "steady_growth"


NORMAL_SHARES = (
    (Shape.STANDARD, 0.70),
    (Shape.SLOW_START, 0.12),
    (Shape.PLATEAU, 0.08),
    (Shape.FADING_SPIKE, 0.06),
    (Shape.SECOND_PUSH, 0.04),
)
OUTLIER_SHARES = (
    (Shape.EARLY_BREAKOUT, 0.50),
    (Shape.LATE_TAKEOFF, 0.35),
    (Shape.STEADY_GROWTH, 0.15),
)
# A fading spike ends above the creator's normal level, never near a breakout.
SPIKE_FINAL = (1.3, 2.5)


def _pick(shares: tuple[tuple[Shape, float], ...], u: float) -> Shape:
    acc = 0.0
    for shape, share in shares:
        acc += share
        if u < acc:
            return shape
    return shares[-1][0]


def _weibull(t: float, scale: float, k: float) -> float:
    return 0.0 if t <= 0.0 else 1.0 - math.exp(-((t / scale) ** k))


class Trajectory:
    """A post's growth: `fraction(age)` of its final views at `age` seconds."""

    __slots__ = ("a", "b", "base_share", "shape", "tau")

    def __init__(self, seed: int, tau: float, *, outlier: bool, multiplier: float) -> None:
        u_shape, u_a, u_b = unit_floats(seed, "trajectory", count=3)
        self.tau = tau
        self.shape = _pick(OUTLIER_SHARES if outlier else NORMAL_SHARES, u_shape)
        self.a = u_a
        self.b = u_b
        # Share of the final views that a late take-off had before it took off.
        self.base_share = 1.0 / multiplier if outlier else 0.6

    @property
    def final_factor(self) -> float:
        """How much a fading spike's final exceeds the normal level drawn for it."""
        if self.shape is Shape.FADING_SPIKE:
            low, high = SPIKE_FINAL
            return low + (high - low) * self.b
        return 1.0

    @property
    def takeoff(self) -> float:
        """Seconds after publication when a late take-off or second push starts."""
        if self.shape is Shape.LATE_TAKEOFF:
            return 12 * HOUR * (10.0**self.a)  # 12 h to 5 d, log-uniform
        if self.shape is Shape.SECOND_PUSH:
            return DAY * (1.0 + 4.0 * self.a)
        return 0.0

    def fraction(self, age: float) -> float:
        t = max(0.0, age)
        tau = self.tau
        shape = self.shape
        if shape is Shape.STANDARD:
            return 1.0 - math.exp(-t / tau)
        if shape in (Shape.SLOW_START, Shape.EARLY_BREAKOUT):
            return _weibull(t, tau, 2.0)
        if shape is Shape.PLATEAU:
            return 1.0 - math.exp(-3.0 * t / tau)
        if shape is Shape.FADING_SPIKE:
            return 1.0 - math.exp(-t / (HOUR * (1.5 + 4.5 * self.a)))
        if shape is Shape.STEADY_GROWTH:
            return _weibull(t, 2.0 * tau, 1.3)
        # LATE_TAKEOFF and SECOND_PUSH: a normal start, then the rest on an S-curve.
        base = self.base_share
        return base * (1.0 - math.exp(-t / tau)) + (1.0 - base) * _weibull(
            t - self.takeoff, 0.7 * tau, 2.0
        )
