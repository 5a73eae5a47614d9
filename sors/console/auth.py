"""Console sessions: a signed cookie naming the API key (by id, never the key itself), and a
CSRF token bound to that session.

The cookie holds `{"k": key_id, "a": account_id, "n": nonce}` signed with the server's secret
and a timestamp (itsdangerous), httpOnly, SameSite=Strict, Secure over https. Every console
request checks the signature, the age and that the key is still active, so a key revoked
through the API or the CLI signs its console sessions out at their next request. The raw key
is read once, from the sign-in form, hashed to find the key, and dropped.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from fastapi import Request

from sors.kit.principal import Principal
from sors.kit.routing import runtime_of
from sors.kit.security import TokenError

COOKIE = "sors_console"
PURPOSE = "console.session"
SESSION_MAX_AGE = 12 * 3600
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"


class SignInRequired(Exception):
    """The page needs a live session; `reason` is shown on the sign-in page."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason  # "signed_out" | "expired" | "revoked" | "invalid"


class CsrfRefused(Exception):
    pass


@dataclass(frozen=True)
class ConsoleUser:
    principal: Principal
    nonce: str
    csrf: str


def _csrf_for(request: Request, nonce: str) -> str:
    secret = runtime_of(request).settings.resolved_secret_key.encode()
    return hmac.new(secret, f"console.csrf:{nonce}".encode(), hashlib.sha256).hexdigest()


def new_session_cookie(request: Request, principal: Principal) -> str:
    payload = {"k": principal.key_id, "a": principal.account_id, "n": secrets.token_urlsafe(16)}
    return request.app.state.signer.sign(PURPOSE, payload)


def set_session_cookie(request: Request, response, value: str) -> None:
    response.set_cookie(
        COOKIE, value, max_age=SESSION_MAX_AGE, path="/app", httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )


def clear_session_cookie(request: Request, response) -> None:
    response.delete_cookie(
        COOKIE, path="/app", httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )


async def current_user(request: Request) -> ConsoleUser:
    """The session named by the cookie. Whether its key is still active is checked by the
    page's first API call (the API refuses a revoked key, and `apicall` turns that 401 into
    a sign-out) or, on a page that makes none, by `ensure_active`: one query per request
    either way."""
    raw = request.cookies.get(COOKIE)
    if not raw:
        raise SignInRequired("signed_out")
    try:
        payload = request.app.state.signer.verify(PURPOSE, raw, max_age=SESSION_MAX_AGE)
    except TokenError as exc:
        raise SignInRequired("expired" if exc.reason == "expired" else "invalid") from exc
    if not isinstance(payload, dict) or not all(
        isinstance(payload.get(k), str) for k in ("k", "a", "n")
    ):
        raise SignInRequired("invalid")
    user = ConsoleUser(Principal(account_id=payload["a"], key_id=payload["k"]), payload["n"],
                       _csrf_for(request, payload["n"]))
    request.state.console_user = user
    return user


async def ensure_active(request: Request, user: ConsoleUser) -> None:
    database = runtime_of(request).database
    if await request.app.state.key_cache.resolve_id(database, user.principal.key_id) is None:
        raise SignInRequired("revoked")


async def check_csrf(request: Request, user: ConsoleUser) -> dict[str, str]:
    """The form of a state-changing request, once its CSRF token matched this session's."""
    form = await request.form()
    sent = request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD)
    if not isinstance(sent, str) or not hmac.compare_digest(sent, user.csrf):
        raise CsrfRefused()
    return {k: v for k, v in form.items() if isinstance(v, str)}
