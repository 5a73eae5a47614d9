"""Numbers as people read them in a sentence: 48.6K views, 22.2×, $12.50."""

from __future__ import annotations

_UNITS = (("B", 1e9), ("M", 1e6), ("K", 1e3))


def compact(n: float | int) -> str:
    """48.6K, 1.2M, 950; one decimal, trailing zero dropped (1K, not 1.0K). A value that
    rounds up to the next unit moves to it (999,960 is 1M, not 1000K)."""
    value = float(n)
    sign = "-" if value < 0 else ""
    value = abs(value)
    for i, (unit, size) in enumerate(_UNITS):
        if value >= size:
            shown = round(value / size, 1)
            if shown >= 1000 and i > 0:  # 999.96K reads 1M
                unit, shown = _UNITS[i - 1][0], round(value / _UNITS[i - 1][1], 1)
            return sign + f"{shown:.1f}".rstrip("0").rstrip(".") + unit
    if round(value) >= 1000:  # 999.6 reads 1K
        return sign + "1K"
    return sign + f"{value:.0f}"


def multiple(x: float | int) -> str:
    """A score read as a multiple of normal: 22.2×, 0.45×, 1.3K×."""
    value = float(x)
    if abs(value) >= 1000:
        return compact(value) + "×"
    return (f"{value:.1f}" if abs(value) >= 1 else f"{value:.2f}") + "×"


def usd(x: float | int) -> str:
    return f"${float(x):,.2f}"
