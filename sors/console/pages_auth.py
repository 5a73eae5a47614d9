"""Sign in, sign out, the static files."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.accounts import service as accounts
from sors.console.auth import (
    COOKIE,
    check_csrf,
    clear_session_cookie,
    new_session_cookie,
    set_session_cookie,
)
from sors.console.render import page, redirect
from sors.console.routing import User, console_router, static_file
from sors.kit.middleware import client_ip
from sors.kit.routing import runtime_of

router = console_router()

REASONS = {
    "signed_out": "Sign in with an API key to use the console.",
    "expired": "Your session expired. Sign in again.",
    "revoked": "The API key of this session was revoked. Sign in with an active key.",
    "invalid": "Your session is not valid any more. Sign in again.",
    "bye": "You are signed out.",
}


def _safe_next(target: str | None) -> str:
    # Only our own console paths: an open redirect would turn sign-in into a phishing aid.
    if target and target.startswith("/app/") and not target.startswith("//"):
        return target
    return "/app/outliers"


@router.get("")
@router.get("/")
async def home(request: Request) -> Response:
    target = "/app/outliers" if request.cookies.get(COOKIE) else "/app/signin"
    return redirect(request, target)


@router.get("/static/{name}")
async def static(name: str) -> Response:
    return static_file(name)


@router.get("/signin")
async def signin_form(request: Request, reason: str | None = None, next: str | None = None):
    return page(request, "signin.html.j2", title="Sign in", notice=REASONS.get(reason or ""),
                next=_safe_next(next), error=None)


@router.post("/signin")
async def signin(request: Request) -> Response:
    form = await request.form()
    target = _safe_next(str(form.get("next") or ""))
    decision = await request.app.state.limiter.hit("ip", client_ip(request.scope))
    if not decision.allowed:
        return page(request, "signin.html.j2", status=429, title="Sign in", notice=None,
                    next=target, error="Too many attempts; wait a minute and try again.")
    key = str(form.get("api_key") or "").strip()
    principal = None
    if key:
        async with runtime_of(request).database.session() as session:
            principal = await accounts.authenticate(session, key)
    del key  # the raw key goes no further than this line
    if principal is None:
        return page(request, "signin.html.j2", status=401, title="Sign in", notice=None,
                    next=target, error="That API key is unknown or revoked.")
    response = redirect(request, target)
    set_session_cookie(request, response, new_session_cookie(request, principal))
    return response


@router.post("/signout")
async def signout(request: Request, user: User) -> Response:
    await check_csrf(request, user)
    response = redirect(request, "/app/signin?reason=bye")
    clear_session_cookie(request, response)
    return response
