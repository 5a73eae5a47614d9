"""The handle patterns in the API document accept exactly what normalize_handle accepts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sors.platforms.handles import HANDLE_PATTERNS, InvalidHandle, normalize_handle

_CHARS = st.text(alphabet="aZ09._-@ .\t\u00e9K\n", max_size=34)
_SAMPLES = ["anna", "@Anna", " @fit.anna ", "a.", "a..b", ".ab", "ab", "a", "x" * 24, "x" * 25,
            "x" * 30, "x" * 31, "ab-c", "ab c", "@@ab", "\u212aelvin"]


def _accepts(platform: str, raw: str) -> bool:
    try:
        normalize_handle(platform, raw)
    except InvalidHandle:
        return False
    return True


def test_known_samples() -> None:
    for platform, pattern in HANDLE_PATTERNS.items():
        for raw in _SAMPLES:
            assert bool(re.search(pattern, raw)) == _accepts(platform, raw), (platform, raw)


@settings(max_examples=300, deadline=None)
@given(platform=st.sampled_from(sorted(HANDLE_PATTERNS)), raw=_CHARS)
def test_patterns_equal_the_code(platform: str, raw: str) -> None:
    assert bool(re.search(HANDLE_PATTERNS[platform], raw)) == _accepts(platform, raw)
