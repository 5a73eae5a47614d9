"""sors_median_without (the SQL helper behind robust scores) against Python's median."""

from __future__ import annotations

import itertools
import statistics

import pytest
from sqlalchemy import text

# The shared simulated clock is put back after each test.
pytestmark = pytest.mark.usefixtures("sim_time_restored")


async def test_median_without_matches_python(db) -> None:
    cases = []
    for n in range(0, 8):
        arr = sorted(float(v) for v in [3, 1, 4, 1, 5, 9, 2, 6][:n])
        for skip in itertools.chain([None], range(1, n + 1)):
            rest = [v for i, v in enumerate(arr, 1) if i != skip]
            cases.append((arr, skip, statistics.median(rest) if rest else None))
    async with db.session() as s:
        for arr, skip, want in cases:
            got = (
                await s.execute(
                    text("SELECT sors_median_without(CAST(:a AS float8[]), :k)"),
                    {"a": arr, "k": skip},
                )
            ).scalar_one()
            assert got == want, (arr, skip, got, want)
