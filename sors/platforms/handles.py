"""Platform handles: the syntax of each platform's handles and their canonical form.

`normalize_handle` is the one check every handle a caller sends goes through (request
bodies, URLs, monitoring targets); `HANDLE_PATTERNS` states the same rules as JSON Schema
patterns for the API document.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic.config import JsonDict

from sors.platforms.base import PLATFORMS


class InvalidHandle(ValueError):
    """The handle does not follow the platform's handle syntax."""


PLATFORM_NAMES = {"tiktok": "TikTok", "instagram": "Instagram", "youtube": "YouTube"}

_HANDLE_RE: dict[str, re.Pattern[str]] = {
    "tiktok": re.compile(r"[a-z0-9._]{2,24}"),
    "instagram": re.compile(r"[a-z0-9._]{1,30}"),
    "youtube": re.compile(r"[a-z0-9._-]{3,30}"),
}

_HANDLE_RULES = {
    "tiktok": "2-24 characters of letters, digits, '.' and '_', not ending with '.'",
    "instagram": "1-30 characters of letters, digits, '.' and '_', without '..' and not "
    "starting or ending with '.'",
    "youtube": "3-30 characters of letters, digits, '.', '_' and '-'",
}


# The same rules as JSON Schema patterns on the raw input (surrounding whitespace, one
# leading '@' and upper case allowed, as normalize_handle accepts them), for the API
# document; tests/platforms/test_handle_patterns.py holds them equal to normalize_handle.
HANDLE_PATTERNS = {
    "tiktok": r"^\s*@?[A-Za-z0-9._]{1,23}[A-Za-z0-9_]\s*$",
    "instagram": r"^\s*@?(?!.*\.\.)[A-Za-z0-9_](?:[A-Za-z0-9._]{0,28}[A-Za-z0-9_])?\s*$",
    "youtube": r"^\s*@?[A-Za-z0-9._-]{3,30}\s*$",
}


def handle_rules_text() -> str:
    return "One leading '@' is ignored. " + "; ".join(
        f"{PLATFORM_NAMES[p]}: {rule}" for p, rule in _HANDLE_RULES.items()
    ) + "."


def handle_schema_rule() -> JsonDict:
    """JSON Schema for a body with `platform` and `handle`: the handle pattern chosen by the
    platform, as nested if/then/else (which client generators leave alone, unlike oneOf)."""
    rule: JsonDict = {}
    for platform, pattern in reversed(list(HANDLE_PATTERNS.items())):
        branch: JsonDict = {"properties": {"handle": {"pattern": pattern}}}
        if not rule:
            rule = branch
            continue
        rule = {
            "if": {"properties": {"platform": {"const": platform}}, "required": ["platform"]},
            "then": branch,
            "else": rule,
        }
    return rule


def _handle_ok(platform: str, h: str) -> bool:
    if not _HANDLE_RE[platform].fullmatch(h):
        return False
    if platform == "tiktok":
        return not h.endswith(".")
    if platform == "instagram":
        return ".." not in h and not h.startswith(".") and not h.endswith(".")
    return True


def is_canonical_handle(platform: str, handle: str) -> bool:
    """Whether `handle` is a handle of the platform in its canonical form (as stored)."""
    try:
        return normalize_handle(platform, handle) == handle
    except InvalidHandle:
        return False


def normalize_handle(platform: str, raw: str) -> str:
    """The canonical handle: one leading '@' removed, lower-cased, syntax checked."""
    if isinstance(raw, str) and isinstance(platform, str):
        cached = _normalized(platform, raw)
        if cached is not None:
            return cached
    return _normalize(platform, raw)


@lru_cache(maxsize=8192)
def _normalized(platform: str, raw: str) -> str | None:
    # The simulated world builds every URL of a crawl from the same handle; remembering
    # recent answers keeps that hot path cheap. Failures are not cached (None), they raise.
    try:
        return _normalize(platform, raw)
    except InvalidHandle:
        return None


def _normalize(platform: str, raw: object) -> str:
    if platform not in PLATFORMS:
        raise InvalidHandle(
            f"Unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}."
        )
    if not isinstance(raw, str):
        raise InvalidHandle("The handle must be a string.")
    h = raw.strip()
    if h.startswith("@"):
        h = h[1:]
    # Checked before lower-casing: some non-ASCII letters lower-case to ASCII ones
    # (KELVIN SIGN -> 'k'), which would let look-alikes through.
    if not h.isascii():
        raise InvalidHandle(f"{PLATFORM_NAMES[platform]} handles use ASCII characters only.")
    h = h.lower()
    if not _handle_ok(platform, h):
        raise InvalidHandle(
            f"{raw!r} is not a valid {PLATFORM_NAMES[platform]} handle: {_HANDLE_RULES[platform]}."
        )
    return h
