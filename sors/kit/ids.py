"""Opaque, prefixed, time-sortable ids (`pst_…`, `acc_…`).

48 bits of milliseconds then 80 random bits, Crockford base32: sorting by id sorts by
creation time, which gives stable keyset pagination, and nothing reveals a row count.
"""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"

PREFIXES = {
    "post": "pst", "profile": "prf", "job": "job", "alert": "alr", "account": "acc",
    "feedback": "fbk", "key": "key", "ledger": "led", "checkout": "cs", "request": "req",
    "email": "eml",
}


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        out.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(prefix: str) -> str:
    ms = int(time.time() * 1000) & ((1 << 48) - 1)
    value = (ms << 80) | secrets.randbits(80)
    return f"{prefix}_{_encode(value, 26)}"


def has_prefix(value: str, prefix: str) -> bool:
    return value.startswith(prefix + "_") and 4 <= len(value) <= 64
