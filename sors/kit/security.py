"""API keys (only their hashes are stored) and signed single-purpose tokens."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

KEY_PREFIX = "sors_"


def generate_api_key() -> str:
    # 32 random bytes = 256 bits, comfortably above the contract's 160.
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> str:
    # Keys are high-entropy random strings, so a fast hash is enough (no brute force is
    # feasible); a slow KDF would only add latency to every request.
    return hashlib.sha256(key.encode()).hexdigest()


def looks_like_api_key(key: str) -> bool:
    return key.startswith(KEY_PREFIX) and 20 <= len(key) <= 100


def display_prefix(key: str) -> str:
    return key[: len(KEY_PREFIX) + 6]


class TokenError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason  # "expired" | "invalid"


class Signer:
    """Signed tokens with one salt per purpose, so a token for one action is useless for
    another, and a maximum age."""

    def __init__(self, secret_key: str) -> None:
        self._secret = secret_key

    def _serializer(self, purpose: str) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self._secret, salt=f"sors.{purpose}")

    def sign(self, purpose: str, payload: Any) -> str:
        return self._serializer(purpose).dumps(payload)

    def verify(self, purpose: str, token: str, max_age: int | None) -> Any:
        try:
            return self._serializer(purpose).loads(token, max_age=max_age)
        except SignatureExpired as exc:
            raise TokenError("expired") from exc
        except BadSignature as exc:
            raise TokenError("invalid") from exc
