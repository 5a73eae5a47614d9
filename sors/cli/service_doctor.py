"""`sors doctor`, the service beyond the platforms: email, payments, the public base URL, the
LLM, storage and Redis, each failing check with its fix. The checks read settings and the
file system; `--live` also connects to the SMTP server and Redis, and with `--email-to`
sends a test message through the configured email backend."""

from __future__ import annotations

import asyncio
import os
from dataclasses import asdict, dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from sors.config import Settings

Status = Literal["ok", "warning", "error"]
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "0.0.0.0", "::1"}  # noqa: S104 (names, not binds)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)


def checks(s: Settings) -> list[Check]:
    """What the settings and the file system say, without a network request."""
    return [_email(s), *_payments(s), _base_url(s), _llm(s), _storage(s), _redis(s)]


def _email(s: Settings) -> Check:
    e = s.email
    if e.backend == "file":
        return Check("email", "warning", f"written to {s.outbox_dir} as files: nobody "
                     "receives alerts, invitations or keys",
                     "set SORS_EMAIL_BACKEND=smtp with SORS_SMTP_HOST, SORS_SMTP_PORT "
                     "(and SORS_SMTP_USERNAME / SORS_SMTP_PASSWORD, SORS_SMTP_STARTTLS)")
    sender_host = e.sender.rsplit("@", 1)[-1].rstrip(">").strip().lower()
    if sender_host.endswith((".local", ".invalid", ".test")) or "@" not in e.sender:
        return Check("email", "error", f"SMTP {e.smtp_host}:{e.smtp_port}, but the sender "
                     f"{e.sender!r} is no deliverable address: mail would be refused",
                     "set SORS_EMAIL_FROM to an address of a domain you send for")
    tls = "TLS" if e.smtp_use_tls else "STARTTLS" if e.smtp_starttls else "plain"
    return Check("email", "ok", f"SMTP {e.smtp_host}:{e.smtp_port} ({tls}), from {e.sender}")


def _payments(s: Settings) -> list[Check]:
    p = s.payments
    if p.provider != "stripe":
        return []  # the local provider is reported under `payments` (cli.doctor)
    key = p.stripe_secret_key or ""
    mode = ("live" if key.startswith(("sk_live_", "rk_live_"))
            else "test" if key.startswith(("sk_test_", "rk_test_")) else None)
    out = [
        Check("stripe key", "error", "SORS_PAYMENTS=stripe without a usable secret key",
              "set SORS_STRIPE_SECRET_KEY (sk_live_… to take real money)")
        if mode is None else
        Check("stripe key", "ok", "live mode: real money moves") if mode == "live" else
        Check("stripe key", "warning", "test mode: no real money moves",
              "set SORS_STRIPE_SECRET_KEY to the live key (sk_live_…) when going live"),
    ]
    if not p.stripe_webhook_secret:
        out.append(Check("stripe webhook", "error", "no webhook secret: payments would "
                         "never be confirmed, so no credits granted",
                         f"add an endpoint {s.base_url.rstrip('/')}/webhooks/stripe "
                         "in Stripe and set SORS_STRIPE_WEBHOOK_SECRET (whsec_…)"))
    elif not p.stripe_webhook_secret.startswith("whsec_"):
        out.append(Check("stripe webhook", "warning", "the webhook secret is not Stripe's "
                         "whsec_… form", "copy the endpoint's signing secret into "
                         "SORS_STRIPE_WEBHOOK_SECRET"))
    else:
        out.append(Check("stripe webhook", "ok", "signing secret set"))
    return out


def _base_url(s: Settings) -> Check:
    url = urlsplit(s.base_url)
    fix = ("set SORS_BASE_URL to the public https address people reach this service at: "
           "links in emails and share pages use it")
    if (url.hostname or "").lower() in _LOCAL_HOSTS:
        return Check("public base URL", "error" if s.platform_source == "live" else "warning",
                     f"{s.base_url}: links in emails and share pages lead nowhere for anyone "
                     "else", fix)
    if url.scheme != "https":
        return Check("public base URL", "warning", f"{s.base_url} is not https", fix)
    return Check("public base URL", "ok", s.base_url)


def _llm(s: Settings) -> Check:
    if s.llm.base_url and s.llm.model:
        return Check("llm", "ok", f"model {s.llm.model}: analysis summaries and remixes "
                     "are phrased by it")
    return Check("llm", "ok", "not configured (optional): analyses compute their findings "
                 "and write a plain summary, remixes come from built-in templates",
                 None)


def _storage(s: Settings) -> Check:
    m = s.media
    if m.store == "s3":
        if not m.s3_bucket:
            return Check("storage", "error", "SORS_MEDIA_STORE=s3 without a bucket",
                         "set SORS_S3_BUCKET (and SORS_S3_ENDPOINT_URL for a non-AWS store)")
        return Check("storage", "ok", f"s3://{m.s3_bucket}/{m.s3_prefix}")
    where = _nearest_existing(s.media_dir)
    if not os.access(where, os.W_OK):
        return Check("storage", "error", f"{s.media_dir} is not writable",
                     f"make {where} writable by the service, or set SORS_DATA_DIR")
    return Check("storage", "ok", f"media files in {s.media_dir} (local disk)")


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _redis(s: Settings) -> Check:
    if not s.redis.url:
        return Check("redis", "warning", "not configured: rate limits are counted per "
                     "process and platform pacing goes through PostgreSQL",
                     "set SORS_REDIS_URL when running more than one API process")
    return Check("redis", "ok", f"{_redacted(s.redis.url)}")


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}{parts.path}"


# ---- --live --------------------------------------------------------------------------


async def probe(s: Settings, email_to: str | None) -> list[Check]:
    out: list[Check] = []
    if s.email.backend == "smtp":
        out.append(await _reachable("smtp reachable", s.email.smtp_host, s.email.smtp_port,
                                    s.email.smtp_timeout, "check SORS_SMTP_HOST / "
                                    "SORS_SMTP_PORT and the firewall"))
    if email_to:
        out.append(await _test_email(s, email_to))
    if s.redis.url:
        parts = urlsplit(s.redis.url)
        out.append(await _reachable("redis reachable", parts.hostname or "localhost",
                                    parts.port or 6379, 5.0, "check SORS_REDIS_URL"))
    return out


async def _reachable(name: str, host: str, port: int, timeout: float, fix: str) -> Check:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError) as exc:
        return Check(name, "error", f"cannot connect to {host}:{port} "
                     f"({type(exc).__name__})", fix)
    writer.close()
    return Check(name, "ok", f"{host}:{port} answers")


async def _test_email(s: Settings, to: str) -> Check:
    from sors.email.backends import EmailDeliveryError, get_backend

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = s.email.sender, to, "sors doctor: test email"
    msg.set_content(f"This test message was sent by `sors doctor --live` of the sors service "
                    f"at {s.base_url}. Nothing else to do.")
    try:
        message_id = await get_backend(s).send(msg)
    except EmailDeliveryError as exc:
        return Check("test email", "error", f"to {to}: {exc}",
                     "check the SMTP settings and the sender's domain")
    where = "the outbox files" if s.email.backend == "file" else "the SMTP server"
    return Check("test email", "ok", f"sent to {to} through {where} ({message_id})")
