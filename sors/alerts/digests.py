"""Alert emails: the confirmation of an address, and the daily digest of new hits (charged
when it goes out, sent at most once a day per address)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from email.message import EmailMessage
from enum import StrEnum
from zoneinfo import ZoneInfo

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.alerts import address_repository as addresses
from sors.alerts import repository as repo
from sors.alerts.links import confirm_url, post_link, stop_url
from sors.alerts.models import AlertAddress, EndReason
from sors.alerts.repository import Row
from sors.alerts.service import end_alerts
from sors.billing import service as billing
from sors.billing.errors import InsufficientCredits, SpendCapReached
from sors.billing.models import ChargeRequest
from sors.billing.pricing import get_pricing
from sors.config import Settings
from sors.email import messages, outbox
from sors.email.backends import EmailDeliveryError
from sors.kit.security import Signer

log = structlog.get_logger("sors.alerts")

EMAIL_SKILL = "alert_email"
FUNDS_RETRY = timedelta(hours=3)
DELIVERY_RETRY = timedelta(hours=1)
UNDELIVERABLE_RETRY = timedelta(hours=24)


# ---- confirmation email -------------------------------------------------------------------


class Confirmation(StrEnum):
    SENT = "sent"
    DUPLICATE = "duplicate"  # an earlier attempt took the address's one email
    FAILED = "failed"  # not delivered: the scheduler tries again later
    SKIPPED = "skipped"  # no active alert sends to the address any more


async def send_confirmation(
    maker: async_sessionmaker[AsyncSession],
    settings: Settings,
    signer: Signer,
    account_id: str,
    email: str,
    now: datetime,
) -> Confirmation:
    """Email the address its confirmation link, at most once ever."""
    async with maker() as s:
        profile = await addresses.any_active_alert_profile(s, account_id, email)
    if profile is None:
        return Confirmation.SKIPPED
    url = confirm_url(settings, signer, account_id, email)

    def build(key: str) -> EmailMessage:
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
        if result.status is outbox.SendStatus.FAILED:
            retry = UNDELIVERABLE_RETRY if result.permanent else DELIVERY_RETRY
            await addresses.update_address(s, account_id, email, next_confirmation_at=now + retry)
        else:
            # Sent now, or by an earlier attempt: never again.
            await addresses.update_address(
                s, account_id, email, confirmation_sent_at=now, next_confirmation_at=None
            )
    return Confirmation(result.status)


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


class Digest(StrEnum):
    SENT = "sent"
    NOT_DUE = "not_due"  # unconfirmed, sent in the last 24 h, no hits, or before its hour
    ALREADY_SENT = "already_sent"  # this address had its digest this UTC day
    UNFUNDED = "unfunded"  # the balance cannot pay it: the hits wait, tried again later
    CAPPED = "capped"  # no paying key's daily cap allows it: the hits wait for the next day
    FAILED = "failed"  # not delivered: charge, hits and the day's key given back


@dataclass
class _Prepared:
    email_id: str
    charge_entry_id: str | None
    alert_ids: list[str]
    previous_digest_at: datetime | None
    rows: list[Row]
    key: str


async def _prepare_digest(
    s: AsyncSession, account_id: str, email: str, now: datetime
) -> _Prepared | Digest:
    """Claim the digest: reserve its outbox key, charge it, and take its hits, all in one
    transaction that commits before anything is sent."""
    address = await addresses.get_address(s, account_id, email, lock=True, skip_locked=True)
    if address is None or address.confirmed_at is None or not _window_open(address, now):
        return Digest.NOT_DUE
    previous = address.last_digest_at
    # Nothing is charged through a revoked key: its alerts' hits wait (see docs/API.md).
    rows = [r for r in await repo.pending_digest_rows(s, account_id, email, now)
            if not r["key_revoked"]]
    if not rows or not any(send_hour_reached(r["timezone"], r["send_hour"], now) for r in rows):
        return Digest.NOT_DUE
    key = f"digest:{account_id}:{email}:{outbox.utc_day(now)}"
    savepoint = await s.begin_nested()
    email_id = await outbox.reserve(
        s, key=key, kind="alert_digest", to=email, account_id=account_id
    )
    if email_id is None:  # this address already had its digest today
        await savepoint.rollback()
        tomorrow = _next_utc_midnight(now)
        await addresses.update_address(s, account_id, email, digest_retry_at=tomorrow)
        return Digest.ALREADY_SENT
    try:
        moved = await _charge(s, account_id, email, rows, now)
    except InsufficientCredits:
        await savepoint.rollback()
        # The hits stay pending; try again in a few hours.
        await addresses.update_address(s, account_id, email, digest_retry_at=now + FUNDS_RETRY)
        log.info("alerts.digest_unfunded", account=account_id, to=email)
        return Digest.UNFUNDED
    if moved is None:
        await savepoint.rollback()
        # The hits stay pending; the caps start again at 00:00 UTC.
        await addresses.update_address(
            s, account_id, email, digest_retry_at=_next_utc_midnight(now)
        )
        log.info("alerts.digest_capped", account=account_id, to=email)
        return Digest.CAPPED
    await savepoint.commit()
    await outbox.set_charge(s, email_id, moved.entry_id)
    alert_ids = list(dict.fromkeys(r["alert_id"] for r in rows))
    await repo.assign_hits(s, [(r["alert_id"], r["post_id"]) for r in rows], email_id)
    await repo.count_emails(s, alert_ids, +1, now)
    await addresses.update_address(s, account_id, email, last_digest_at=now, digest_retry_at=None)
    return _Prepared(email_id, moved.entry_id, alert_ids, previous, rows, key)


async def _charge(
    s: AsyncSession, account_id: str, email: str, rows: list[Row], now: datetime
) -> billing.Movement | None:
    """The digest's one charge, through the key of one of the alerts it reports: the first
    (oldest alert first) whose daily cap allows it. None: every one of those caps refused;
    InsufficientCredits: the balance cannot pay it."""
    for key_id in dict.fromkeys(r["key_id"] for r in rows):
        try:
            async with s.begin_nested():
                return await billing.charge(s, ChargeRequest(
                    account_id, get_pricing().cost(EMAIL_SKILL), EMAIL_SKILL, at=now,
                    reason=f"viral alert digest to {email}", key_id=key_id,
                ))
        except SpendCapReached:
            continue
    return None


def _build_digest(
    settings: Settings, signer: Signer, email: str, p: _Prepared, now: datetime
) -> EmailMessage:
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
                rising_score=r["hit_score"] if r["trigger"] == "rising" else None,
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
) -> Digest:
    """Send one address's digest if it is due."""
    async with maker() as s, s.begin():
        prepared = await _prepare_digest(s, account_id, email, now)
    if isinstance(prepared, Digest):
        return prepared
    msg = _build_digest(settings, signer, email, prepared, now)
    try:
        message_id = await outbox.deliver(settings, msg)
    except EmailDeliveryError as exc:
        log.warning("alerts.digest_failed", account=account_id, to=email, error=str(exc))
        async with maker() as s, s.begin():
            await _undo_digest(s, account_id, email, prepared, now, permanent=exc.permanent)
        return Digest.FAILED
    async with maker() as s, s.begin():
        await outbox.mark_sent(s, prepared.email_id, message_id, now)
        exhausted = await repo.exhausted_among(s, prepared.alert_ids)
        await end_alerts(s, exhausted, EndReason.EMAILS_EXHAUSTED, now)
    log.info("alerts.digest_sent", account=account_id, to=email, posts=len(prepared.rows))
    return Digest.SENT


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
        await billing.refund_charge(
            s, p.charge_entry_id, reason="alert digest not delivered", now=now
        )
    await repo.release_hits(s, p.email_id)
    await repo.count_emails(s, p.alert_ids, -1, now)
    retry = UNDELIVERABLE_RETRY if permanent else DELIVERY_RETRY
    await addresses.update_address(
        s, account_id, email, last_digest_at=p.previous_digest_at, digest_retry_at=now + retry
    )
