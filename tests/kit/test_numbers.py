"""Numbers as people read them: compact counts, multiples, dollars."""

from __future__ import annotations

import pytest

from sors.kit.numbers import compact, multiple, usd


@pytest.mark.parametrize(("n", "shown"), [
    (0, "0"), (7, "7"), (999, "999"), (999.4, "999"), (999.6, "1K"), (1000, "1K"), (1050, "1.1K"),
    (48_612, "48.6K"), (999_949, "999.9K"), (999_960, "1M"), (1_234_567, "1.2M"),
    (3_200_000_000, "3.2B"), (-40, "-40"), (-48_612, "-48.6K"),
])
def test_counts_read_with_one_decimal_and_a_unit(n: float, shown: str) -> None:
    assert compact(n) == shown


@pytest.mark.parametrize(("x", "shown"), [
    (22.23, "22.2×"), (3, "3.0×"), (0.4512, "0.45×"), (1234.5, "1.2K×"),
])
def test_scores_read_as_multiples(x: float, shown: str) -> None:
    assert multiple(x) == shown


def test_dollars_have_cents_and_thousands() -> None:
    assert usd(1234.5) == "$1,234.50" and usd(0.9) == "$0.90"
