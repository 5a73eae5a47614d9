"""Who is calling: the account and the key a request was authenticated with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Principal:
    account_id: str
    key_id: str
