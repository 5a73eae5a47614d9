"""The simulated world's growth shapes: documented shares, monotonic, each shape as described."""

from __future__ import annotations

from collections import Counter

import pytest

from sors.platforms.sim.trajectories import (
    DAY,
    HOUR,
    NORMAL_SHARES,
    OUTLIER_SHARES,
    Shape,
    Trajectory,
)

TAU = 2 * DAY
N = 20_000


def _counts(outlier: bool) -> Counter[Shape]:
    return Counter(
        Trajectory(seed, TAU, outlier=outlier, multiplier=10.0 if outlier else 1.0).shape
        for seed in range(N)
    )


@pytest.mark.parametrize("outlier,shares", [(False, NORMAL_SHARES), (True, OUTLIER_SHARES)])
def test_shapes_come_in_their_documented_shares(outlier: bool, shares: tuple) -> None:
    counts = _counts(outlier)
    for shape, share in shares:
        assert abs(counts[shape] / N - share) < 0.015, shape


def test_every_shape_rises_monotonically_from_zero_to_its_final_value() -> None:
    ages = [0.0, 0.5 * HOUR, HOUR, 3 * HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 30 * DAY, 120 * DAY]
    seen = set()
    for seed in range(400):
        for outlier in (False, True):
            t = Trajectory(seed, TAU, outlier=outlier, multiplier=8.0)
            seen.add(t.shape)
            f = [t.fraction(a) for a in ages]
            assert f[0] == 0.0
            assert f == sorted(f)
            assert f[-1] == pytest.approx(1.0, abs=1e-3)
    assert seen == set(Shape)


def _one(shape: Shape, outlier: bool) -> Trajectory:
    for seed in range(10_000):
        t = Trajectory(seed, TAU, outlier=outlier, multiplier=10.0)
        if t.shape is shape:
            return t
    raise AssertionError(shape)


def test_a_fading_spike_gets_most_of_its_views_in_hours_and_then_slows_down() -> None:
    t = _one(Shape.FADING_SPIKE, outlier=False)
    assert t.fraction(12 * HOUR) > 0.85
    early = t.fraction(HOUR) / 1.0
    later = (t.fraction(3 * HOUR) - t.fraction(HOUR)) / 2.0
    assert later < early  # views per hour fall from the start
    assert 1.3 <= t.final_factor <= 2.5  # ends above normal, far below a breakout


def test_a_late_take_off_looks_normal_until_it_takes_off() -> None:
    t = _one(Shape.LATE_TAKEOFF, outlier=True)
    assert 12 * HOUR <= t.takeoff <= 5 * DAY
    before = t.fraction(t.takeoff)
    assert before <= 1.0 / 10.0  # the normal part only: 1/multiplier of the final views
    assert t.fraction(t.takeoff + 4 * TAU) > 0.95


def test_an_early_breakout_accelerates_in_its_first_hours() -> None:
    t = _one(Shape.EARLY_BREAKOUT, outlier=True)
    first = t.fraction(HOUR)
    second = t.fraction(3 * HOUR) - t.fraction(HOUR)
    assert second / 2.0 > first / 1.0
