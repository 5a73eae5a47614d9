"""Viral alerts: creating and ending them, and detection after crawls (announced as
`alert.triggered` at once; the emails are in `sors.alerts.digests`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from sors.alerts import address_repository as addresses
from sors.alerts import repository as repo
from sors.alerts.errors import AlertLimitReached, AlertNotFound, UnconfirmedAddressLimit
from sors.alerts.models import Alert, AlertAddress, EndReason
from sors.alerts.schemas import SETTINGS_FIELDS, AlertIn, AlertOut
from sors.catalog.models import Profile
from sors.catalog.records import service as catalog
from sors.catalog.records.errors import PostNotFound
from sors.config import Settings
from sors.email.addresses import normalize_email
from sors.events import service as events
from sors.kit.clock import isoformat
from sors.kit.errors import Unauthorized
from sors.kit.ids import new_id
from sors.monitoring import repository as monitoring_repo
from sors.monitoring import service as monitoring
from sors.monitoring.models import StartedBy
from sors.subscriptions import limits

log = structlog.get_logger("sors.alerts")

MAX_ACTIVE_ALERTS = 25
MAX_UNCONFIRMED_ADDRESSES = 3


# ---- records ------------------------------------------------------------------------------


async def records(
    session: AsyncSession, rows: list[tuple[Alert, Profile, bool]]
) -> list[AlertOut]:
    pending = await repo.pending_counts(session, [a.id for a, _, _ in rows])
    return [
        AlertOut.of(a, p, confirmed=c, pending_hits=pending.get(a.id, 0)) for a, p, c in rows
    ]


async def record(session: AsyncSession, alert_id: str) -> AlertOut:
    [out] = await records(session, await repo.alerts_with_profiles(session, alert_ids=[alert_id]))
    return out


async def list_alerts(session: AsyncSession, account_id: str) -> list[AlertOut]:
    return await records(session, await repo.alerts_with_profiles(session, account_id=account_id))


# ---- create / update ----------------------------------------------------------------------


@dataclass(frozen=True)
class Upserted:
    created: bool
    alert_id: str
    send_confirmation: bool  # a new unconfirmed address: email it a confirmation link


def _apply_settings(alert: Alert, body: AlertIn, fields: set[str], now: datetime) -> None:
    names = {
        "trigger": "trigger",
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
    session: AsyncSession, account_id: str, key_id: str, body: AlertIn, now: datetime,
    settings: Settings,
) -> Upserted:
    """Create the alert, or update the active one of the profile and address; either way
    its digests (and monitoring it started) are charged through `key_id` from now on."""
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
        existing.key_id = key_id
        if existing.started_tracking:
            entry = await monitoring_repo.get_entry(
                session, account_id, profile.id, for_update=True
            )
            if entry is not None and entry.started_by == StartedBy.ALERT:
                if "frequency" in sent:
                    entry.frequency = body.frequency
                monitoring.adopt(entry, key_id, now)
        await session.flush()
        return Upserted(False, existing.id, False)

    if await repo.count_active(session, account_id) >= MAX_ACTIVE_ALERTS:
        raise AlertLimitReached(
            f"An account can have {MAX_ACTIVE_ALERTS} active alerts; delete one first "
            "(DELETE /api/v1/alerts/{alertId})."
        )
    await _within_followed_limit(session, account_id, profile.id, now, settings)
    is_account_email = bool(account_email) and _same_address(account_email or "", email)
    address = await addresses.get_address(session, account_id, email, lock=True)
    confirmed = is_account_email or (address is not None and address.confirmed_at is not None)
    if not confirmed:
        in_use = await addresses.unconfirmed_addresses_in_use(session, account_id)
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
        await addresses.add_address(session, address)
    elif is_account_email and address.confirmed_at is None:
        address.confirmed_at = now
        address.next_confirmation_at = None

    started = await monitoring.start_for_alert(
        session, account_id, profile.id, body.frequency, now, key_id
    )
    alert = Alert(
        id=new_id("alr"),
        account_id=account_id,
        profile_id=profile.id,
        email=email,
        trigger=body.trigger,
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
        key_id=key_id,
        # Detection starts with the next completed crawl of the profile.
        detected_through=profile.last_crawled_at,
        created_at=now,
        updated_at=now,
    )
    await repo.add_alert(session, alert)
    needs_email = not confirmed and address.confirmation_sent_at is None
    return Upserted(True, alert.id, needs_email)


async def _within_followed_limit(
    session: AsyncSession, account_id: str, profile_id: str, now: datetime, settings: Settings
) -> None:
    """A profile not yet followed must fit the plan's followed-profile limit."""
    standing = await limits.standing(session, account_id, now, settings)
    cap = standing.followed_profile_limit
    if cap is None:
        return
    followed = await repo.followed_profiles(session, account_id)
    if profile_id not in followed and len(followed) >= cap:
        raise limits.PlanLimitReached("followedProfileLimit", cap, standing)


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
    if entry is None or entry.started_by != StartedBy.ALERT:
        return False
    if await repo.count_active_on_profile(session, account_id, profile_id) > 0:
        return False
    return await monitoring_repo.delete_entry(session, account_id, profile_id)


async def end_alerts(
    session: AsyncSession, alert_ids: Sequence[str], reason: EndReason, now: datetime
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
) -> AlertOut:
    alert = await repo.get_alert(session, alert_id, lock=True)
    if alert is None or alert.account_id != account_id:
        raise AlertNotFound(f"No alert {alert_id} on this account.")
    await end_alerts(session, [alert.id], EndReason.DELETED, now)
    return await record(session, alert.id)


async def confirm(session: AsyncSession, account_id: str, email: str, now: datetime) -> bool | None:
    return await addresses.confirm_address(session, account_id, email, now)


async def stop(session: AsyncSession, alert_ids: Sequence[str], now: datetime) -> list[str]:
    return await end_alerts(session, alert_ids, EndReason.STOPPED, now)


async def expire_due(session: AsyncSession, now: datetime, *, limit: int) -> int:
    """End alerts past their expiry, and any whose 3rd email went out but which are still
    active (the digest's own ending step was cut short)."""
    due = await repo.alerts_to_end(session, now, limit=limit)
    ended = 0
    for reason in (EndReason.EXPIRED, EndReason.EMAILS_EXHAUSTED):
        ended += len(await end_alerts(session, [i for i, r in due if r == reason], reason, now))
    return ended


async def detect(
    session: AsyncSession, now: datetime, *, limit: int, min_age_hours: float
) -> tuple[int, int]:
    hits, checked = await repo.detect(session, now, limit=limit)
    await _announce_hits(session, hits, now, min_age_hours)  # now, not at the digest
    return len(hits), checked


HitEvent = Literal["alert.triggered", "post.rising"]


async def _announce_hits(
    session: AsyncSession, hits: Sequence[tuple[str, str]], now: datetime, min_age_hours: float
) -> None:
    """For each new (alert, post) hit, when detected (the email digest is separate and
    later): `alert.triggered` for a score alert, `post.rising` for a rising alert, with the
    records GET /alerts and GET /posts/{postId} answer."""
    if not hits:
        return
    owners = await repo.owners(session, list({a for a, _ in hits}))
    kinds: tuple[HitEvent, ...] = ("alert.triggered", "post.rising")
    wanted = {kind: await events.accounts_wanting(session, list(owners.values()), kind)
              for kind in kinds}
    if not any(wanted.values()):
        return
    alerts: dict[str, AlertOut] = {}
    for alert_id, post_id in hits:
        account_id = owners.get(alert_id)
        if not any(account_id in w for w in wanted.values()):
            continue
        if alert_id not in alerts:
            alerts[alert_id] = await record(session, alert_id)
        alert = alerts[alert_id]
        kind: HitEvent = "post.rising" if alert.trigger == "rising" else "alert.triggered"
        if account_id not in wanted[kind]:
            continue
        try:
            post = (await catalog.get_post(
                session, post_id, now=now, min_age_hours=min_age_hours,
                include_transcript=False, include_visual_analysis=False,
            )).model_dump(exclude_unset=True)
        except PostNotFound:
            continue
        data: dict[str, object] = {"alert": alert.model_dump(), "post": post}
        if kind == "post.rising":
            data |= {"profile": post["profile"], "projection": post["projection"],
                     "risingScore": (post["projection"] or {}).get("vs_median_now")}
        else:
            data["outlierScore"] = post["outlier_scores"].get(alert.scoreWindow)
        await events.emit(session, account_id, kind, {**data, "detectedAt": isoformat(now)},
                          at=now)
