"""Handles: every accepted form and every refused one, by the one rule of each platform."""

from __future__ import annotations

import pytest

from sors.platforms.handles import InvalidHandle, normalize_handle

# ---- handles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "raw", "expected"),
    [
        ("tiktok", "@Fit.Anna", "fit.anna"),
        ("tiktok", "ab", "ab"),
        ("tiktok", "a" * 24, "a" * 24),
        ("tiktok", "under_score.dot9", "under_score.dot9"),
        ("tiktok", "  @padded  ", "padded"),
        ("instagram", "x", "x"),
        ("instagram", "@Cook.With_Sam", "cook.with_sam"),
        ("instagram", "a" * 30, "a" * 30),
        ("youtube", "@CookWithSam", "cookwithsam"),
        ("youtube", "cook-with.sam_1", "cook-with.sam_1"),
        ("youtube", "abc", "abc"),
    ],
)
def test_normalize_handle_accepts(platform: str, raw: str, expected: str) -> None:
    assert normalize_handle(platform, raw) == expected


@pytest.mark.parametrize(
    ("platform", "raw"),
    [
        ("tiktok", "a"),  # too short
        ("tiktok", "a" * 25),  # too long
        ("tiktok", "ends.with.dot."),
        ("tiktok", "has-dash"),
        ("tiktok", "@@double"),  # only one '@' is stripped
        ("tiktok", "sp ace"),
        ("tiktok", ""),
        ("tiktok", "@"),
        ("instagram", "a" * 31),
        ("instagram", "two..dots"),
        ("instagram", ".leading"),
        ("instagram", "trailing."),
        ("instagram", "dash-ed"),
        ("youtube", "ab"),
        ("youtube", "a" * 31),
        ("youtube", "slash/y"),
        ("tiktok", "caf\u00e9s"),  # non-ASCII
        ("tiktok", "\u212aelvin"),  # KELVIN SIGN lower-cases to 'k': still refused
        ("twitter", "someone"),  # unknown platform
    ],
)
def test_normalize_handle_refuses(platform: str, raw: str) -> None:
    with pytest.raises(InvalidHandle):
        normalize_handle(platform, raw)


def test_invalid_handle_is_a_value_error_with_the_rule() -> None:
    with pytest.raises(ValueError, match="2-24 characters"):
        normalize_handle("tiktok", "x")
