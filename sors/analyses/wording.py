"""How an analysis writes for people: numbers formatted ("37M", "310.6K", "1,240", "15.7 s",
"4%"), plurals that agree ("1 post", "3 posts"), values written as words ("a call to action",
"publishing at 9 pm UTC"), never a programming literal (True, False, None).

Pure functions; the texts of findings, summaries, the console, the share page and the MCP
answers all come through here, so they read the same everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from sors.analyses.hooks import HOOK_LABELS

# Irregular plurals; every other noun takes an "s".
_PLURALS = {"person": "people", "is": "are", "does": "do", "has": "have", "was": "were"}


def plural(n: int | float, noun: str, many: str | None = None) -> str:
    """The noun agreeing with `n` ("1 post", "2 posts", "1 creator", "0 outliers")."""
    if n == 1:
        return noun
    return many or _PLURALS.get(noun) or (noun + "es" if noun.endswith(("s", "x")) else
                                          noun + "s")


def count(n: int, noun: str, many: str | None = None) -> str:
    """A whole number with its noun: "1 post", "1,240 posts"."""
    return f"{n:,} {plural(n, noun, many)}"


def decimal(v: float, places: int = 1) -> str:
    """At most `places` decimals, none when whole: 15.7, 3, 0.25 (places=2)."""
    text = f"{v:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def compact(n: float | int | None) -> str:
    """Views and followers as people write them: 37M, 310.6K, 940."""
    if n is None:
        return "unknown"
    x = float(n)
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(x) >= size:
            return decimal(x / size) + unit
    return decimal(x, 0)


def times(score: float | None) -> str:
    """An outlier score: "119×", "4.8×"."""
    if score is None:
        return "no score yet"
    return decimal(score, 0 if score >= 100 else 1) + "×"


def percent(share: float) -> str:
    """A share (0-1) as a whole percentage; under 1% but above 0 says "under 1%"."""
    if 0 < share < 0.005:
        return "under 1%"
    if 0.995 < share < 1:
        return "over 99%"
    return f"{round(100 * share)}%"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def hour(h: int) -> str:
    """An hour of the day (UTC): "9 am", "12 pm", "9 pm"."""
    h %= 24
    if h == 0:
        return "midnight"
    if h == 12:
        return "noon"
    return f"{h % 12 or 12} {'am' if h < 12 else 'pm'}"


def seconds(v: float) -> str:
    if v >= 120:
        m, s = divmod(round(v), 60)
        return f"{m} min {s} s" if s else f"{m} min"
    return f"{decimal(v)} s"


# How each numeric feature's value is written (by its unit), and the words for its two ends.
_ENDS: Mapping[str, tuple[str, str]] = {
    "durationSeconds": ("shorter", "longer"),
    "timeToFirstCut": ("sooner", "later"),
    "speakingRate": ("slower", "faster"),
    "cutsPerMinute": ("fewer cuts", "more cuts"),
    "captionLength": ("shorter", "longer"),
}


def ends(name: str) -> tuple[str, str]:
    """The words for "below" and "above" on a feature ("shorter", "longer")."""
    return _ENDS.get(name, ("lower", "higher"))


def number_with_unit(value: float, unit: str | None) -> str:
    if unit == "s":
        return seconds(value)
    if unit == "%":
        return f"{decimal(value)}%"
    if unit == "h":
        return hour(int(value)) + " UTC"
    text = decimal(value)
    if not unit:
        return text
    # Units are written as plurals ("words", "hashtags"); one of them reads singular.
    if value == 1 and unit.endswith("s") and "/" not in unit:
        unit = unit[:-1]
    return f"{text} {unit}"


def value_text(name: str, label: str, value: object, unit: str | None = None) -> str:
    """A feature's value as a phrase: "a question hook", "a call to action", "no hashtags",
    "15.7 s", "publishing at 9 pm UTC", "on a Tuesday"."""
    if value is None:
        return "not measured"
    if name == "hookType":
        if value == "other":
            return "a hook of no common type"
        kind = HOOK_LABELS.get(str(value), str(value))
        return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} hook"
    if isinstance(value, bool):
        return f"{'a' if value else 'no'} {label}"
    if name == "publishHour" and isinstance(value, int | float):
        return f"publishing at {hour(int(value))} UTC"
    if name == "publishWeekday":
        return f"publishing on a {str(value).capitalize()}"
    if name == "format":
        return f"a {value}"
    if isinstance(value, int | float):
        if not math.isfinite(float(value)):
            return "not measured"
        return number_with_unit(float(value), unit)
    return str(value)


def display(name: str, label: str, value: object, unit: str | None = None) -> str | None:
    """The value as the console, the share page and CSV show it (None when not measured)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name == "hookType":
        return HOOK_LABELS.get(str(value), str(value))
    if name == "publishHour" and isinstance(value, int | float):
        return hour(int(value)) + " UTC"
    if name == "publishWeekday":
        return str(value).capitalize()
    if isinstance(value, int | float):
        return number_with_unit(float(value), unit)
    return str(value)


def share_of(n: int, of: int, noun: str) -> str:
    """"3 of 4 outliers", "none of the 12 other posts", "all 5 outliers", or "12% of the 410
    other posts" when the group is big."""
    if n == 0:
        return f"none of the {count(of, noun)}" if of != 1 else f"not the 1 {noun}"
    if n == of:
        return f"all {count(of, noun)}" if of > 2 else (
            f"both {plural(2, noun)}" if of == 2 else f"the 1 {noun}")
    if of <= 10:
        return f"{n} of {count(of, noun)}"
    return f"{percent(n / of)} of the {count(of, noun)}"


def none_or(share: float, of: int, who: str) -> str:
    """"none of {who}", "all of {who}", or "7% of {who}"."""
    if share <= 0:
        return f"none of {who}"
    if share >= 1:
        return f"all of {who}" if of != 1 else who
    return f"{percent(share)} of {who}"


def verb(n: int, singular: str) -> str:
    """The verb agreeing with a count ("1 outlier is", "3 outliers are")."""
    return singular if n == 1 else plural(2, singular)
