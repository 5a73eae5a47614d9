"""Viral alerts: creating and ending them, detection after crawls, confirmation of
addresses, and the daily digest (charged when it goes out, sent at most once a day)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.alerts import repository as repo
from sors.alerts.models import Alert, AlertAddress
from sors.alerts.schemas import SETTINGS_FIELDS, AlertIn, alert_record, normalize_email
from sors.billing import service as billing
from sors.billing.pricing import get_pricing
from sors.catalog.models import Profile
from sors.config import Settings
from sors.email import messages, outbox
from sors.email.backends import EmailDeliveryError
from sors.kit.errors import (
    AlertLimitReached,
    AlertNotFound,
    InsufficientCredits,
    Unauthorized,
    UnconfirmedAddressLimit,
)
from sors.kit.ids import new_id
from sors.kit.security import Signer, TokenError
from sors.monitoring import repository as monitoring_repo
from sors.monitoring import service as monitoring
from sors.platforms.sim.pages import post_link
from sors.webhooks import events as webhook_events

log = structlog.get_logger("sors.alerts")

MAX_ACTIVE_ALERTS = 25
MAX_UNCONFIRMED_ADDRESSES = 3
EMAIL_SKILL = "alert_email"
FUNDS_RETRY = timedelta(hours=3)
DELIVERY_RETRY = timedelta(hours=1)
UNDELIVERABLE_RETRY = timedelta(hours=24)
CONFIRM_PURPOSE = "alert-confirm"
STOP_PURPOSE = "alert-stop"
# Links in emails stay usable for as long as an alert can live, and then some.
LINK_MAX_AGE = 365 * 24 * 3600


# ---- signed links -------------------------------------------------------------------------


def confirm_url(settings: Settings, signer: Signer, account_id: str, email: str) -> str:
    token = signer.sign(CONFIRM_PURPOSE, {"a": account_id, "e": email})
    return f"{settings.base_url.rstrip('/')}/alerts/confirm/{token}"


def stop_url(settings: Settings, signer: Signer, alert_ids: Sequence[str]) -> str:
    token = signer.sign(STOP_PURPOSE, {"alerts": list(alert_ids)})
    return f"{settings.base_url.rstrip('/')}/alerts/stop/{token}"


def read_confirm_token(signer: Signer, token: str) -> tuple[str, str]:
    """(account id, address); raises TokenError."""
    data = signer.verify(CONFIRM_PURPOSE, token, LINK_MAX_AGE)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("a"), str)
        or not isinstance(data.get("e"), str)
    ):
        raise TokenError("invalid")
    return data["a"], data["e"]


def read_stop_token(signer: Signer, token: str) -> list[str]:
    data = signer.verify(STOP_PURPOSE, token, LINK_MAX_AGE)
    ids = data.get("alerts") if isinstance(data, dict) else None
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise TokenError("invalid")
    return ids


# ---- records ------------------------------------------------------------------------------


async def records(
    session: AsyncSession, rows: list[tuple[Alert, Profile, bool]]
) -> list[dict[str, Any]]:
    pending = await repo.pending_counts(session, [a.id for a, _, _ in rows])
    return [alert_record(a, p, confirmed=c, pending_hits=pending.get(a.id, 0)) for a, p, c in rows]


async def record(session: AsyncSession, alert_id: str) -> dict[str, Any]:
    return (await records(session, await repo.alerts_with_profiles(session, alert_ids=[alert_id])))[
        0
    ]


async def list_alerts(session: AsyncSession, account_id: str) -> list[dict[str, Any]]:
    return await records(session, await repo.alerts_with_profiles(session, account_id=account_id))


# ---- create / update ----------------------------------------------------------------------


@dataclass(frozen=True)
class Upserted:
    created: bool
    alert_id: str
    send_confirmation: bool  # a new unconfirmed address: email it a confirmation link


def _apply_settings(alert: Alert, body: AlertIn, fields: set[str], now: datetime) -> None:
    names = {
        "minOutlierScore": "min_outlier_score",
        "scoreWindow": "score_window",
        "postAgeDays": "post_age_days",
        "expiresInDays": "expires_in_days",
        "sendHour": "send_hour",
        "timezone": "timezone",
        "frequency": "frequency",
    }
    for field in fields:
        setattr(alert, names[field], getattr(body, field))
    if "expiresInDays" in fields:
        alert.expires_at = now + timedelta(days=body.expiresInDays)
    alert.updated_at = now


async def upsert_alert(
    session: AsyncSession, account_id: str, body: AlertIn, now: datetime
) -> Upserted:
    found, account_email = await repo.lock_account(session, account_id)
    if not found:
        raise Unauthorized("The account of this key no longer exists.")
    profile = await monitoring.resolve_profile(session, body)
    email = body.email

    existing = await repo.active_alert(session, account_id, profile.id, email)
    if existing is not None:
        # Only the settings the caller sent change; the others keep their values.
        sent = set(body.model_fields_set) & set(SETTINGS_FIELDS)
        _apply_settings(existing, body, sent, now)
        if "frequency" in sent and existing.started_tracking:
            entry = await monitoring_repo.get_entry(
                session, account_id, profile.id, for_update=True
            )
            if entry is not None and entry.started_by == "alert":
                entry.frequency = body.frequency
                entry.updated_at = now
        await session.flush()
        return Upserted(False, existing.id, False)

    if await repo.count_active(session, account_id) >= MAX_ACTIVE_ALERTS:
        raise AlertLimitReached(
            f"An account can have {MAX_ACTIVE_ALERTS} active alerts; delete one first "
            "(DELETE /api/v1/alerts/{alertId})."
        )
    is_account_email = bool(account_email) and _same_address(account_email or "", email)
    address = await repo.get_address(session, account_id, email, lock=True)
    confirmed = is_account_email or (address is not None and address.confirmed_at is not None)
    if not confirmed:
        in_use = await repo.unconfirmed_addresses_in_use(session, account_id)
        if email not in in_use and len(in_use) >= MAX_UNCONFIRMED_ADDRESSES:
            raise UnconfirmedAddressLimit(
                f"At most {MAX_UNCONFIRMED_ADDRESSES} unconfirmed addresses may receive alerts "
                "at a time; wait until one is confirmed, or delete its alerts."
            )
    if address is None:
        address = AlertAddress(
            account_id=account_id,
            email=email,
            created_at=now,
            confirmed_at=now if is_account_email else None,
            next_confirmation_at=None if is_account_email else now,
        )
        await repo.add_address(session, address)
    elif is_account_email and address.confirmed_at is None:
        address.confirmed_at = now
        address.next_confirmation_at = None

    started = await monitoring.start_for_alert(session, account_id, profile.id, body.frequency, now)
    alert = Alert(
        id=new_id("alr"),
        account_id=account_id,
        profile_id=profile.id,
        email=email,
        min_outlier_score=body.minOutlierScore,
        score_window=body.scoreWindow,
        post_age_days=body.postAgeDays,
        expires_in_days=body.expiresInDays,
        send_hour=body.sendHour,
        timezone=body.timezone,
        frequency=body.frequency,
        status="active",
        expires_at=now + timedelta(days=body.expiresInDays),
        emails_sent=0,
        started_tracking=started,
        # Detection starts with the next completed crawl of the profile.
        detected_through=profile.last_crawled_at,
        created_at=now,
        updated_at=now,
    )
    await repo.add_alert(session, alert)
    needs_email = not confirmed and address.confirmation_sent_at is None
    return Upserted(True, alert.id, needs_email)


def _same_address(a: str, b: str) -> bool:
    try:
        return normalize_email(a) == b
    except ValueError:
        return a.strip().lower() == b


# ---- ending -------------------------------------------------------------------------------


async def release_tracking(session: AsyncSession, account_id: str, profile_id: str) -> bool:
    """Stop monitoring that alerts started once no active alert of the account needs it.
    Monitoring the user asked for (startedBy "user") is never touched."""
    entry = await monitoring_repo.get_entry(session, account_id, profile_id, for_update=True)
    if entry is None or entry.started_by != "alert":
        return False
    if await repo.count_active_on_profile(session, account_id, profile_id) > 0:
        return False
    return await monitoring_repo.delete_entry(session, account_id, profile_id)


async def end_alerts(
    session: AsyncSession, alert_ids: Sequence[str], reason: str, now: datetime
) -> list[str]:
    """End the given alerts that are still active; returns those ended now."""
    ended = await repo.end_alerts(session, alert_ids, reason, now)
    for pair in sorted({(account, profile) for _, account, profile in ended}):
        await release_tracking(session, *pair)
    if ended:
        log.info("alerts.ended", reason=reason, alerts=[a for a, _, _ in ended])
    return [a for a, _, _ in ended]


async def delete_alert(
    session: AsyncSession, account_id: str, alert_id: str, now: datetime
) -> dict[str, Any]:
    alert = await repo.get_alert(session, alert_id, lock=True)
    if alert is None or alert.account_id != account_id:
        raise AlertNotFound(f"No alert {alert_id} on this account.")
    await end_alerts(session, [alert.id], "deleted", now)
    return await record(session, alert.id)


async def confirm(session: AsyncSession, account_id: str, email: str, now: datetime) -> bool | None:
    return await repo.confirm_address(session, account_id, email, now)


async def stop(session: AsyncSession, alert_ids: Sequence[str], now: datetime) -> list[str]:
    return await end_alerts(session, alert_ids, "stopped", now)


async def expire_due(session: AsyncSession, now: datetime, *, limit: int) -> int:
    """End alerts past their expiry, and any whose 3rd email went out but which are still
    active (the digest's own ending step was cut short)."""
    due = await repo.alerts_to_end(session, now, limit=limit)
    ended = 0
    for reason in ("expired", "emails_exhausted"):
        ended += len(await end_alerts(session, [i for i, r in due if r == reason], reason, now))
    return ended


async def detect(session: AsyncSession, now: datetime, *, limit: int) -> tuple[int, int]:
    hits, checked = await repo.detect(session, now, limit=limit)
    await webhook_events.alert_hits(session, hits)  # alert.triggered, now, not at the digest
    return len(hits), checked


# ---- confirmation email -------------------------------------------------------------------


async def send_confirmation(
    maker: async_sessionmaker[AsyncSession],
    settings: Settings,
    signer: Signer,
    account_id: str,
    email: str,
    now: datetime,
) -> str:
    """Email the address its confirmation link, at most once ever. Returns the outcome
    ("sent", "duplicate", "failed" — retried later by the scheduler — or "skipped")."""
    async with maker() as s:
        profile = await repo.any_active_alert_profile(s, account_id, email)
    if profile is None:
        return "skipped"
    url = confirm_url(settings, signer, account_id, email)

    def build(key: str):
        return messages.alert_confirmation(
            email,
            url,
            profile.handle,
            profile.platform,
            settings=settings,
            now=now,
            idempotency_key=key,
        )

    result = await outbox.send_once(
        maker,
        settings,
        key=f"alert-confirm:{account_id}:{email}",
        kind="alert_confirmation",
        to=email,
        account_id=account_id,
        build=build,
    )
    async with maker() as s, s.begin():
        if result.status == "failed":
            retry = UNDELIVERABLE_RETRY if result.permanent else DELIVERY_RETRY
            await repo.update_address(s, account_id, email, next_confirmation_at=now + retry)
        else:
            # Sent now, or by an earlier attempt: never again.
            await repo.update_address(
                s, account_id, email, confirmation_sent_at=now, next_confirmation_at=None
            )
    return result.status


# ---- digests ------------------------------------------------------------------------------


def send_hour_reached(timezone: str, send_hour: int, now: datetime) -> bool:
    """Has the local time in `timezone` reached `send_hour` today?"""
    return now.astimezone(ZoneInfo(timezone)).time() >= time(send_hour)


def _window_open(address: AlertAddress, now: datetime) -> bool:
    if address.last_digest_at is not None and now < address.last_digest_at + timedelta(hours=24):
        return False
    return address.digest_retry_at is None or address.digest_retry_at <= now


async def digests_due(session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
    """(account, address) pairs whose digest is due: pending hits, and the local time in
    one of their alerts' time zones has reached that alert's send hour."""
    due: set[tuple[str, str]] = set()
    for r in await repo.digest_candidates(session, now):
        if send_hour_reached(r["timezone"], r["send_hour"], now):
            due.add((r["account_id"], r["email"]))
    return sorted(due)


def _next_utc_midnight(now: datetime) -> datetime:
    day = now.astimezone(UTC).date() + timedelta(days=1)
    return datetime.combine(day, time(0), tzinfo=UTC)


@dataclass
class _Prepared:
    email_id: str
    charge_entry_id: str | None
    alert_ids: list[str]
    previous_digest_at: datetime | None
    rows: list[Any]
    key: str


async def _prepare_digest(
    s: AsyncSession, account_id: str, email: str, now: datetime
) -> _Prepared | None:
    """Claim the digest: reserve its outbox key, charge it, and take its hits, all in one
    transaction that commits before anything is sent."""
    address = await repo.get_address(s, account_id, email, lock=True, skip_locked=True)
    if address is None or address.confirmed_at is None or not _window_open(address, now):
        return None
    previous = address.last_digest_at
    rows = await repo.pending_digest_rows(s, account_id, email, now)
    if not rows or not any(send_hour_reached(r["timezone"], r["send_hour"], now) for r in rows):
        return None
    key = f"digest:{account_id}:{email}:{outbox.utc_day(now)}"
    savepoint = await s.begin_nested()
    email_id = await outbox.reserve(
        s, key=key, kind="alert_digest", to=email, account_id=account_id
    )
    if email_id is None:  # this address already had its digest today
        await savepoint.rollback()
        await repo.update_address(s, account_id, email, digest_retry_at=_next_utc_midnight(now))
        return None
    try:
        moved = await billing.charge(
            s,
            account_id,
            get_pricing().cost(EMAIL_SKILL),
            skill=EMAIL_SKILL,
            reason=f"viral alert digest to {email}",
        )
    except InsufficientCredits:
        await savepoint.rollback()
        # The hits stay pending; try again in a few hours.
        await repo.update_address(s, account_id, email, digest_retry_at=now + FUNDS_RETRY)
        log.info("alerts.digest_unfunded", account=account_id, to=email)
        return None
    await savepoint.commit()
    await outbox.set_charge(s, email_id, moved.entry_id)
    alert_ids = list(dict.fromkeys(r["alert_id"] for r in rows))
    await repo.assign_hits(s, [(r["alert_id"], r["post_id"]) for r in rows], email_id)
    await repo.count_emails(s, alert_ids, +1, now)
    await repo.update_address(s, account_id, email, last_digest_at=now, digest_retry_at=None)
    return _Prepared(email_id, moved.entry_id, alert_ids, previous, rows, key)


def _build_digest(settings: Settings, signer: Signer, email: str, p: _Prepared, now: datetime):
    items = []
    for r in p.rows:
        window = r["score_window"]
        score = r[f"score_{window}"]
        items.append(
            messages.DigestItem(
                post_url=post_link(settings, r["post_id"], r["url"]),
                handle=r["handle"],
                platform=r["platform"],
                views=r["views"],
                outlier_score=score if score is not None else r["hit_score"],
                score_window=window,
                caption_excerpt=r["caption"],
                alert_id=r["alert_id"],
            )
        )
    stop_urls = {a: stop_url(settings, signer, [a]) for a in p.alert_ids}
    return messages.alert_digest(
        email,
        items,
        stop_urls,
        stop_url(settings, signer, p.alert_ids),
        settings=settings,
        now=now,
        idempotency_key=p.key,
    )


async def send_digest(
    maker: async_sessionmaker[AsyncSession],
    settings: Settings,
    signer: Signer,
    account_id: str,
    email: str,
    now: datetime,
) -> bool:
    """Send one address's digest if it is due. True when an email went out."""
    async with maker() as s, s.begin():
        prepared = await _prepare_digest(s, account_id, email, now)
    if prepared is None:
        return False
    msg = _build_digest(settings, signer, email, prepared, now)
    try:
        message_id = await outbox.deliver(settings, msg)
    except EmailDeliveryError as exc:
        log.warning("alerts.digest_failed", account=account_id, to=email, error=str(exc))
        async with maker() as s, s.begin():
            await _undo_digest(s, account_id, email, prepared, now, permanent=exc.permanent)
        return False
    async with maker() as s, s.begin():
        await outbox.mark_sent(s, prepared.email_id, message_id)
        exhausted = await repo.exhausted_among(s, prepared.alert_ids)
        await end_alerts(s, exhausted, "emails_exhausted", now)
    log.info("alerts.digest_sent", account=account_id, to=email, posts=len(prepared.rows))
    return True


async def _undo_digest(
    s: AsyncSession,
    account_id: str,
    email: str,
    p: _Prepared,
    now: datetime,
    *,
    permanent: bool,
) -> None:
    """Nothing was delivered: give back the charge, the hits and the email count, and free
    the day's key for a later attempt."""
    await outbox.release(s, p.email_id, "delivery failed")
    if p.charge_entry_id:
        await billing.refund_charge(s, p.charge_entry_id, reason="alert digest not delivered")
    await repo.release_hits(s, p.email_id)
    await repo.count_emails(s, p.alert_ids, -1, now)
    retry = UNDELIVERABLE_RETRY if permanent else DELIVERY_RETRY
    await repo.update_address(
        s, account_id, email, last_digest_at=p.previous_digest_at, digest_retry_at=now + retry
    )
