"""Early detection on the simulated world's shapes, through the real crawl pipeline: a fading
spike is a decoy, a late take-off is caught once it takes off."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sors.platforms.sim import posts as sim_posts
from sors.platforms.sim.trajectories import Trajectory
from tests.rising.conftest import HANDLE, WORLD, History


def _by_post(history: History, shape: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in history.timeline:
        if row["shape"] == shape:
            out.setdefault(row["platform_post_id"], []).append(row)
    return out


def _takeoff(slot: int) -> timedelta:
    account = WORLD.account("tiktok", HANDLE)
    s = sim_posts.slot(account, slot)
    assert s is not None
    return timedelta(seconds=Trajectory(s.seed, account.tau, outlier=True, multiplier=10).takeoff)


def test_a_fading_spike_runs_far_above_its_creators_curve_early_but_is_not_rising_at_48h(
    history: History,
) -> None:
    [states] = [
        s for s in _by_post(history, "fading_spike").values()
        if s[0]["projection"]["age_hours"] < 2
    ]
    first = states[0]["projection"]
    assert first["vs_median_now"] > 3  # looks like a breakout in its first hour...
    assert first["percentile_now"] > 95
    [at_48h] = [s for s in states if 48 <= s["projection"]["age_hours"] < 49]
    assert at_48h["projection"]["accelerating"] is False  # ...but its views per hour fade
    assert at_48h["rising"] is False
    assert not any(s["rising"] for s in states)


def test_a_late_take_off_becomes_rising_when_it_takes_off_and_not_before(
    history: History,
) -> None:
    seen_young = 0
    for states in _by_post(history, "late_takeoff").values():
        if states[0]["projection"]["age_hours"] > 2:
            continue  # published before the crawls started: not seen young
        seen_young += 1
        takeoff = states[0]["published_at"] + _takeoff(states[0]["slot"])
        before = [s for s in states if s["at"] <= takeoff]
        after = [s for s in states if takeoff < s["at"] <= takeoff + timedelta(hours=36)]
        assert before and after
        assert not any(s["rising"] for s in before)
        assert any(s["rising"] for s in after)
        first = next(s for s in after if s["rising"])
        assert first["projection"]["percentile_now"] > 90
        assert first["projection"]["accelerating"] is True
    assert seen_young >= 2


def test_a_post_that_stopped_growing_is_not_rising_on_a_few_views_of_noise(
    history: History,
) -> None:
    # Shapes that have levelled off by 5 days (this creator's tau is 1.5 days); integer
    # views over uneven crawl intervals still make their views per hour wobble.
    settled = {"standard", "slow_start", "plateau", "fading_spike"}
    checked = 0
    for row in history.timeline:
        if row["shape"] in settled and row["projection"]["age_hours"] > 120:
            assert row["rising"] is False, row
            checked += 1
    assert checked > 100
