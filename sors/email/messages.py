"""The emails the service sends, built as complete `EmailMessage` objects.

Each builder renders a plain-text and an HTML part from the Jinja2 templates next to this
module (HTML autoescaped: captions, handles and notes come from users and platforms) and
returns a multipart/alternative message with From, To, Subject, Date and Message-ID set.
`idempotency_key`, when given, travels in `X-Sors-Idempotency-Key` so the outbox can refuse
to send the same logical email twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from sors.config import Settings

IDEMPOTENCY_HEADER = "X-Sors-Idempotency-Key"

PLATFORM_NAMES = {"tiktok": "TikTok", "instagram": "Instagram", "youtube": "YouTube"}
WINDOW_LABELS = {
    "one_week": "1-week",
    "two_weeks": "2-week",
    "one_month": "1-month",
    "three_months": "3-month",
    "six_months": "6-month",
    "one_year": "1-year",
    "all_time": "all-time",
}
CAPTION_EXCERPT_CHARS = 200


@dataclass(frozen=True, slots=True)
class DigestItem:
    post_url: str
    handle: str
    platform: str
    views: int | None
    outlier_score: float | None
    score_window: str
    caption_excerpt: str | None
    alert_id: str
    # A rising alert's hit: views / the creator's median views at the post's age.
    rising_score: float | None = None


# --- formatting helpers (also used as template filters) ---------------------------------


def format_views(views: int | None) -> str:
    return "—" if views is None else f"{views:,}"


def format_score(score: float | None) -> str:
    return "—" if score is None else f"{score:.1f}×"


def platform_name(platform: str) -> str:
    return PLATFORM_NAMES.get(platform, platform)


def window_label(window: str) -> str:
    return WINDOW_LABELS.get(window, window.replace("_", " "))


def safe_href(url: str) -> str:
    """Only web links become clickable; anything else (javascript:, data:) is neutralised."""
    return url if re.match(r"(?i)^https?://", url or "") else "#"


def excerpt(text: str | None, limit: int = CAPTION_EXCERPT_CHARS) -> str:
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _one_line(text: str) -> str:
    # Header values must not carry line breaks; user text (handles) can reach the subject.
    return " ".join(text.split())


@cache
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("sors.email", "templates"),
        # HTML escaped, always; plain text never (escaping would garble it).
        autoescape=select_autoescape(
            enabled_extensions=("html.j2",), disabled_extensions=("txt.j2",), default=True
        ),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        views=format_views,
        score=format_score,
        platform_name=platform_name,
        window_label=window_label,
        safe_href=safe_href,
        excerpt=excerpt,
    )
    return env


def render(name: str, **context: Any) -> tuple[str, str]:
    """(text, html) for template pair `name.txt.j2` / `name.html.j2`."""
    env = _environment()
    text = env.get_template(f"{name}.txt.j2").render(**context)
    html = env.get_template(f"{name}.html.j2").render(**context)
    return text, html


@dataclass(frozen=True, slots=True)
class Sending:
    """What every email is built with: the settings (sender, links), the time it is dated
    (the caller's clock), and the outbox key it travels with."""

    settings: Settings
    now: datetime
    idempotency_key: str | None


def _build(
    to: str,
    subject: str,
    template: str,
    context: Mapping[str, Any],
    sending: Sending,
    extra_headers: Mapping[str, str] | None = None,
) -> EmailMessage:
    settings = sending.settings
    text, html = render(template, base_url=settings.base_url.rstrip("/"), **context)
    msg = EmailMessage()
    msg["From"] = settings.email.sender
    msg["To"] = to
    msg["Subject"] = _one_line(subject)
    msg["Date"] = format_datetime(sending.now)
    _, from_addr = parseaddr(settings.email.sender)
    msg["Message-ID"] = make_msgid(domain=from_addr.rpartition("@")[2] or "sors.local")
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation auto-replies, please
    if sending.idempotency_key:
        msg[IDEMPOTENCY_HEADER] = _one_line(sending.idempotency_key)
    for key, value in (extra_headers or {}).items():
        msg[key] = value
    # Quoted-printable keeps the .eml files in the outbox readable with a plain pager.
    msg.set_content(text, cte="quoted-printable")
    msg.add_alternative(html, subtype="html", cte="quoted-printable")
    return msg


# --- the emails ----------------------------------------------------------------------------
# Each takes what it says, then `settings`, `now` and (from the outbox) `idempotency_key`.


def feedback_resolved(
    to: str, feedback_id: str, message_excerpt: str, resolution_note: str | None, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    context = {
        "feedback_id": feedback_id,
        "message_excerpt": excerpt(message_excerpt, 500),
        "resolution_note": (resolution_note or "").strip(),
    }
    return _build(to, f"Your sors report {feedback_id} is resolved", "feedback_resolved",
                  context, Sending(settings, now, idempotency_key))


def alert_confirmation(
    to: str, confirm_url: str, handle: str, platform: str, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    subject = f"Confirm viral alerts for @{handle} on {platform_name(platform)}"
    context = {"confirm_url": confirm_url, "handle": handle, "platform": platform}
    return _build(to, subject, "alert_confirmation", context,
                  Sending(settings, now, idempotency_key))


def _digest_subject(items: Sequence[DigestItem]) -> str:
    handles = list(dict.fromkeys(f"@{item.handle}" for item in items))
    count = len(items)
    kind = "rising" if all(i.rising_score is not None for i in items) else "outlier"
    noun = f"{kind} post" if count == 1 else f"{kind} posts"
    who = handles[0] if len(handles) == 1 else f"{handles[0]} and {len(handles) - 1} more"
    return f"{count} new {noun} from {who}"


def _digest_post(post: DigestItem) -> dict[str, object]:
    return {
        "url": post.post_url,
        "handle": post.handle,
        "platform": post.platform,
        "views": post.views,
        "score": post.outlier_score,
        "window": post.score_window,
        "rising": post.rising_score,
        "caption": excerpt(post.caption_excerpt),
    }


def alert_digest(
    to: str, items: Sequence[DigestItem], stop_urls: Mapping[str, str], unsubscribe_url: str,
    *, settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    """One email bundling every pending hit of an address, grouped by alert.

    `stop_urls` maps alert id to that alert's stop page; `unsubscribe_url` is the one-click
    stop action (RFC 8058) that `List-Unsubscribe` points at.
    """
    if not items:
        raise ValueError("a digest needs at least one item")
    groups: dict[str, list[DigestItem]] = {}
    for item in items:
        groups.setdefault(item.alert_id, []).append(item)
    sections = [
        {
            "alert_id": alert_id,
            "handle": posts[0].handle,
            "platform": posts[0].platform,
            "stop_url": stop_urls.get(alert_id),
            "posts": [_digest_post(post) for post in posts],
        }
        for alert_id, posts in groups.items()
    ]
    context = {"sections": sections, "count": len(items), "unsubscribe_url": unsubscribe_url}
    return _build(
        to, _digest_subject(items), "alert_digest", context,
        Sending(settings, now, idempotency_key),
        extra_headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


def api_key_issued(
    to: str, api_key: str, credits: int, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    return _build(to, "Your sors API key", "api_key_issued",
                  {"api_key": api_key, "credits": credits}, Sending(settings, now, idempotency_key))


def webhook_disabled(
    to: str, endpoint_id: str, url: str, last_error: str | None, attempts: int, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    context = {
        "endpoint_id": endpoint_id,
        "url": url,
        "last_error": excerpt(last_error or "", 300),
        "attempts": attempts,
    }
    return _build(to, f"Your sors webhook {endpoint_id} was disabled", "webhook_disabled",
                  context, Sending(settings, now, idempotency_key))


def trial_ending(
    to: str, plan_name: str, trial_end: str, price: str, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    subject = f"Your sors {plan_name} trial ends {trial_end[:10]}"
    context = {"plan_name": plan_name, "trial_end": trial_end, "price": price}
    return _build(to, subject, "trial_ending", context, Sending(settings, now, idempotency_key))


def payment_failed(
    to: str, plan_name: str, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    return _build(to, f"Payment for your sors {plan_name} plan failed", "payment_failed",
                  {"plan_name": plan_name}, Sending(settings, now, idempotency_key))


def member_invite(
    to: str, invited_by: str | None, role: str, accept_url: str, *,
    settings: Settings, now: datetime, idempotency_key: str | None = None,
) -> EmailMessage:
    context = {"invited_by": invited_by, "role": role, "accept_url": accept_url}
    return _build(to, "You are invited to a sors workspace", "member_invite", context,
                  Sending(settings, now, idempotency_key))
