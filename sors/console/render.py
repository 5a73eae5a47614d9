"""Templates, display filters, flash messages and the console's response headers."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any, NotRequired, TypedDict
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from sors.analyses.wording import display as feature_value_text
from sors.billing.pricing import get_pricing
from sors.console.apicall import ApiResult
from sors.kit.routing import runtime_of
from sors.kit.security import TokenError

FLASH_COOKIE = "sors_console_flash"
# Pages hold account data: never cached, never framed, scripts only from our own origin;
# forms may also land on https (a top-up redirects to the payment provider's checkout).
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: https:; style-src 'self'; "
        "script-src 'self'; form-action 'self' https:; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def compact(n: Any) -> str:
    if n is None:
        return "—"
    n = float(n)
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + unit
    return f"{n:.0f}"


def counted(post: Mapping[str, Any], name: str) -> str:
    """A post's count as people should read it: "≈34.1K" when the platform rounded it,
    "hidden" when it hid it (`approximations`), else as `compact`."""
    flag = (post.get("approximations") or {}).get(name)
    value = post.get(name)
    if value is None and flag == "hidden":
        return "hidden"
    text = compact(value)
    return "≈" + text if flag == "rounded" and value is not None else text


def score(v: Any) -> str:
    return "—" if v is None else f"{float(v):.1f}×"


def age(iso: str | None, now: datetime) -> str:
    """How long before `now` (the page's time: simulated in the demo) a stored time was."""
    if not iso:
        return "—"
    then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    seconds = (now.astimezone(UTC) - then).total_seconds()
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600),
                       ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def when(iso: str | None) -> str:
    """A stored time as people read it, in UTC to the minute: "Sep 25, 2026 14:03 UTC"."""
    if not iso:
        return "—"
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)
    return f"{at:%b} {at.day}, {at:%Y %H:%M} UTC"


def skill_title(key: str | None) -> str:
    """A priced skill's title from the price list ("Get a profile"); unknown keys as sent."""
    if not key:
        return ""
    skill = get_pricing().skills.get(key)
    return skill.title if skill is not None else key


def percent(v: Any) -> str:
    return "—" if v is None else f"{float(v) * 100:.2f}%"


def credits(n: int) -> str:
    return "free" if n == 0 else f"{n} credit" + ("" if n == 1 else "s")


def fetchable_image(url: str | None) -> bool:
    """Reserved `.invalid` hosts (the simulated platforms' asset labels) never resolve, so
    the card draws its own placeholder instead of a broken image."""
    if not url:
        return False
    parts = urlsplit(url)
    return parts.scheme == "https" and not (parts.hostname or "").endswith(".invalid")


def thumbnail_src(post: Mapping[str, Any], simulated: bool) -> str | None:
    """Where a card's image loads from: the platform's https URL, or in simulation the frame
    the simulated world renders for the post (`/sim/thumbs/…`); None draws a placeholder."""
    url = post.get("thumbnail_url")
    if fetchable_image(url):
        return url
    return f"/sim/thumbs/{post['id']}.jpg" if simulated and url else None


def feature_display(name: str, label: str, value: Any, unit: str | None) -> str:
    """A feature's value as people read it (never a programming literal)."""
    return feature_value_text(name, label, value, unit) or "not measured"


HOOK_SOURCES = {"speech": "spoken", "on_screen_text": "on screen", "caption": "the caption"}


def hook_source(hook: Any) -> str:
    """Where an analysed hook came from, and what agrees with it."""
    source = getattr(hook, "source", None) if not isinstance(hook, Mapping) else hook.get(
        "source")
    support = (hook.get("supportedBy") if isinstance(hook, Mapping)
               else getattr(hook, "supportedBy", None)) or []
    said = HOOK_SOURCES.get(source or "", "heard or shown")
    also = [HOOK_SOURCES[s] for s in support if s in HOOK_SOURCES]
    return said + (f", matching {' and '.join(also)}" if also else "")


@cache
def env() -> Environment:
    e = Environment(
        loader=PackageLoader("sors.console", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    e.filters.update(compact=compact, counted=counted, score=score, age=age, percent=percent,
                     credits=credits,
                     when=when)
    e.globals.update(windows=WINDOWS, window_names=WINDOW_NAMES,
                     skill_title=skill_title, thumbnail_src=thumbnail_src,
                     feature_display=feature_display, hook_source=hook_source,
                     form_id=lambda: secrets.token_urlsafe(12))
    return e


WINDOWS = ("one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year",
           "all_time")
WINDOW_NAMES = {"one_week": "1 week", "two_weeks": "2 weeks", "one_month": "1 month",
                "three_months": "3 months", "six_months": "6 months", "one_year": "1 year",
                "all_time": "all time"}


def cost(skill: str, variant: str | None = None) -> int:
    return get_pricing().cost(skill, variant)


def page(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    user = getattr(request.state, "console_user", None)
    flash = read_flash(request)
    runtime = runtime_of(request)
    html = env().get_template(template).render(
        request=request, user=user, csrf=user.csrf if user else "", flash=flash, cost=cost,
        path=request.url.path, now=runtime.now(),
        simulated=runtime.settings.platform_source == "sim", **ctx,
    )
    response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)
    if flash:
        response.delete_cookie(FLASH_COOKIE, path="/app")
    return response


class Flash(TypedDict):
    """What an action did, shown once on the page it redirects to (a signed cookie)."""

    message: str
    ok: bool
    charged: NotRequired[int | None]
    balance: NotRequired[int | None]


def outcome(message: str, result: ApiResult | None = None) -> Flash:
    """What an action did, as the page reports it: the message, and what it charged."""
    if result is None:
        return Flash(message=message, ok=True)
    problem = result.problem
    if not result.ok and problem:
        message = f"{message}: {problem.get('detail') or problem.get('title')}"
    return Flash(message=message, ok=result.ok, charged=result.charged, balance=result.balance)


def redirect(request: Request, to: str, flash: Flash | None = None) -> RedirectResponse:
    response = RedirectResponse(to, status_code=303, headers=SECURITY_HEADERS)
    if flash:
        response.set_cookie(
            FLASH_COOKIE, request.app.state.signer.sign("console.flash", flash), max_age=60,
            path="/app", httponly=True, samesite="strict", secure=request.url.scheme == "https",
        )
    return response


def read_flash(request: Request) -> Flash | None:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return None
    try:
        data = request.app.state.signer.verify("console.flash", raw, max_age=60)
    except TokenError:
        return None
    if not isinstance(data, dict):
        return None
    return Flash(message=str(data.get("message", "")), ok=data.get("ok") is True,
                 charged=data.get("charged"), balance=data.get("balance"))
