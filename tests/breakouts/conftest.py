"""Tests here move the shared simulated clock: put it back afterwards."""

from __future__ import annotations

import pytest

from tests.factories.world import sim_time_restored

__all__ = ["sim_time_restored"]


@pytest.fixture(autouse=True)
def _restore_clock(sim_time_restored: None) -> None:
    return None
