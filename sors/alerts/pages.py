"""The pages behind the links in alert emails; no API key needed, the signed token is the
authority. GET only shows a page with a button (mail scanners prefetch links); the POST the
button sends is what acts. `List-Unsubscribe-Post` one-click requests POST the stop URL with
the body `List-Unsubscribe=One-Click`, which the stop action accepts as is."""

from __future__ import annotations

from html import escape
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sors.alerts import address_repository as addresses
from sors.alerts import links, service
from sors.alerts import repository as repo
from sors.kit.routing import Context, SorsRoute, get_session
from sors.kit.security import TokenError

router = APIRouter(route_class=SorsRoute, include_in_schema=False)
Session = Annotated[AsyncSession, Depends(get_session)]
Token = Annotated[str, Path(min_length=10, max_length=4096)]


# The pages run no script and load nothing; their URL holds the token, so no Referer.
_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{escape(title)} · sors</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;
color:#222}}button{{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}}</style>
</head><body><h1>{escape(title)}</h1>{body}</body></html>"""
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


def _button(label: str) -> str:
    # An empty action posts back to this same URL (token included).
    return f'<form method="post"><button type="submit">{escape(label)}</button></form>'


def _bad_link(reason: str) -> HTMLResponse:
    text = "This link has expired." if reason == "expired" else "This link is not valid."
    return page("Link not valid", f"<p>{text}</p>", status=400)


@router.get("/alerts/confirm/{token}")
async def confirm_page(request: Request, session: Session, token: Token) -> HTMLResponse:
    try:
        account_id, email = links.read_confirm_token(request.app.state.signer, token)
    except TokenError as exc:
        return _bad_link(exc.reason)
    address = await addresses.get_address(session, account_id, email)
    if address is None:
        return _bad_link("invalid")
    if address.confirmed_at is not None:
        return page("Already confirmed", f"<p>{escape(email)} already receives these alerts.</p>")
    return page(
        "Confirm viral alerts",
        f"<p>Send viral alert emails to <b>{escape(email)}</b>?</p>{_button('Confirm')}",
    )


@router.post("/alerts/confirm/{token}")
async def confirm_action(request: Request, ctx: Context, token: Token) -> HTMLResponse:
    try:
        account_id, email = links.read_confirm_token(request.app.state.signer, token)
    except TokenError as exc:
        return _bad_link(exc.reason)
    done = await service.confirm(ctx.session, account_id, email, ctx.now)
    if done is None:
        return _bad_link("invalid")
    return page(
        "Address confirmed",
        f"<p>Viral alert digests will be sent to <b>{escape(email)}</b>.</p>",
    )


async def _alerts_of(session: AsyncSession, ids: list[str]) -> list[tuple[str, str, str]]:
    rows = await repo.alerts_with_profiles(session, alert_ids=ids)
    return [(a.status, p.platform, p.handle) for a, p, _ in rows]


@router.get("/alerts/stop/{token}")
async def stop_page(request: Request, session: Session, token: Token) -> HTMLResponse:
    try:
        ids = links.read_stop_token(request.app.state.signer, token)
    except TokenError as exc:
        return _bad_link(exc.reason)
    alerts = await _alerts_of(session, ids)
    active = [(pl, h) for st, pl, h in alerts if st == "active"]
    if not active:
        return page("Nothing to stop", "<p>These alerts have already ended.</p>")
    items = "".join(f"<li>@{escape(h)} on {escape(pl)}</li>" for pl, h in active)
    return page(
        "Stop viral alerts",
        f"<p>Stop the alerts for:</p><ul>{items}</ul>{_button('Stop these alerts')}",
    )


@router.post("/alerts/stop/{token}")
async def stop_action(request: Request, ctx: Context, token: Token) -> HTMLResponse:
    try:
        ids = links.read_stop_token(request.app.state.signer, token)
    except TokenError as exc:
        return _bad_link(exc.reason)
    ended = await service.stop(ctx.session, ids, ctx.now)
    if not ended:
        return page("Nothing to stop", "<p>These alerts had already ended.</p>")
    noun = "alert" if len(ended) == 1 else "alerts"
    return page(
        "Alerts stopped", f"<p>{len(ended)} {noun} stopped. No more emails will come from them.</p>"
    )
