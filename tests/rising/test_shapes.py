"""Early detection on the simulated world's shapes: a fading spike is a decoy, a late
take-off is caught once it takes off."""

from __future__ import annotations

from datetime import timedelta

from sors.platforms.sim.trajectories import Trajectory
from tests.rising.conftest import HANDLE, WORLD, History


def _states(history: History, shape: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in history.timeline:
        if row["shape"] == shape:
            out.setdefault(row["platform_post_id"], []).append(row)
    return out


def test_print_timeline(history: History) -> None:
    for r in history.timeline:
        if r["shape"] in ("fading_spike", "late_takeoff", "early_breakout"):
            p = r["projection"]
            print(r["platform_post_id"][-6:], r["shape"], r["at"], p["age_hours"], r["views"],
                  p["vs_median_now"], p["expected_views_now"], p["accelerating"], r["rising"])
