"""Every query of the alerts domain."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import exists, func, select, text, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.models import ApiKey
from sors.alerts.address_repository import ADDRESS_JOIN
from sors.alerts.models import Alert, AlertAddress, AlertHit
from sors.catalog.models import WINDOWS, Post, Profile

Row = RowMapping  # a result row by column name
MAX_EMAILS = 3

# Advisory lock class for per-account serialisation of alert changes ("SORS" + 1).
_LOCK_CLASS = 0x534F5253 + 1


async def lock_account(session: AsyncSession, account_id: str) -> tuple[bool, str | None]:
    """Serialise one account's alert changes until the transaction ends, so the limits
    hold under concurrency (an advisory lock: charges on the account are not blocked).
    Returns (account exists, its email)."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(:c, hashtext(:a))"), {"c": _LOCK_CLASS, "a": account_id}
    )
    row = (
        await session.execute(text("SELECT email FROM accounts WHERE id = :a"), {"a": account_id})
    ).first()
    return (row is not None, row[0] if row else None)


# ---- alerts -------------------------------------------------------------------------------


async def active_alert(
    session: AsyncSession, account_id: str, profile_id: str, email: str
) -> Alert | None:
    stmt = (
        select(Alert)
        .where(
            Alert.account_id == account_id,
            Alert.profile_id == profile_id,
            Alert.email == email,
            Alert.status == "active",
        )
        .with_for_update()
    )
    return (await session.execute(stmt)).scalars().first()


async def count_active(session: AsyncSession, account_id: str) -> int:
    stmt = (
        select(func.count())
        .select_from(Alert)
        .where(Alert.account_id == account_id, Alert.status == "active")
    )
    return int((await session.execute(stmt)).scalar_one())


async def followed_profiles(session: AsyncSession, account_id: str) -> set[str]:
    """The profiles with an active alert of the account (the plan's followed profiles)."""
    stmt = select(Alert.profile_id).where(Alert.account_id == account_id, Alert.status == "active")
    return set((await session.execute(stmt)).scalars())


async def count_active_on_profile(session: AsyncSession, account_id: str, profile_id: str) -> int:
    stmt = (
        select(func.count())
        .select_from(Alert)
        .where(
            Alert.account_id == account_id, Alert.profile_id == profile_id, Alert.status == "active"
        )
    )
    return int((await session.execute(stmt)).scalar_one())


async def add_alert(session: AsyncSession, alert: Alert) -> None:
    session.add(alert)
    await session.flush()


async def get_alert(session: AsyncSession, alert_id: str, *, lock: bool = False) -> Alert | None:
    stmt = select(Alert).where(Alert.id == alert_id)
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def alerts_with_profiles(
    session: AsyncSession, *, account_id: str | None = None, alert_ids: Sequence[str] | None = None
) -> list[tuple[Alert, Profile, bool]]:
    """(alert, profile, address confirmed), newest alert first."""
    stmt = (
        select(Alert, Profile, AlertAddress.confirmed_at.is_not(None))
        .join(Profile, Profile.id == Alert.profile_id)
        .outerjoin(AlertAddress, ADDRESS_JOIN)
        .order_by(Alert.created_at.desc(), Alert.id.desc())
        .execution_options(populate_existing=True)
    )
    if account_id is not None:
        stmt = stmt.where(Alert.account_id == account_id)
    if alert_ids is not None:
        stmt = stmt.where(Alert.id.in_(list(alert_ids)))
    return [(a, p, bool(c)) for a, p, c in (await session.execute(stmt)).all()]


async def pending_counts(session: AsyncSession, alert_ids: Sequence[str]) -> dict[str, int]:
    if not alert_ids:
        return {}
    stmt = (
        select(AlertHit.alert_id, func.count())
        .where(AlertHit.alert_id.in_(list(alert_ids)), AlertHit.digest_id.is_(None))
        .group_by(AlertHit.alert_id)
    )
    return {a: int(n) for a, n in (await session.execute(stmt)).all()}


async def end_alerts(
    session: AsyncSession, alert_ids: Sequence[str], reason: str, now: datetime
) -> list[tuple[str, str, str]]:
    """End the still active ones; returns (alert id, account id, profile id) of each."""
    if not alert_ids:
        return []
    stmt = (
        update(Alert)
        .where(Alert.id.in_(list(alert_ids)), Alert.status == "active")
        .values(status="ended", ended_reason=reason, ended_at=now, updated_at=now)
        .returning(Alert.id, Alert.account_id, Alert.profile_id)
        .execution_options(synchronize_session=False)
    )
    return [(a, b, c) for a, b, c in (await session.execute(stmt)).all()]


async def alerts_to_end(
    session: AsyncSession, now: datetime, *, limit: int
) -> list[tuple[str, str]]:
    """(alert id, reason) of active alerts past their expiry or out of emails, locked."""
    stmt = (
        select(Alert.id, Alert.expires_at, Alert.emails_sent)
        .where(Alert.status == "active",
               (Alert.expires_at <= now) | (Alert.emails_sent >= MAX_EMAILS))
        .order_by(Alert.id).limit(limit).with_for_update(skip_locked=True)
    )
    return [
        (i, "emails_exhausted" if sent >= MAX_EMAILS else "expired")
        for i, exp, sent in (await session.execute(stmt)).all()
    ]


# ---- detection ------------------------------------------------------------------------------

_SCORE_BY_WINDOW = (
    "CASE a.score_window " + " ".join(f"WHEN '{w}' THEN po.score_{w}" for w in WINDOWS) + " END"
)

_DETECT = text(f"""
WITH due AS (
    SELECT a.id, pr.last_crawled_at AS crawled_at
      FROM alerts a JOIN profiles pr ON pr.id = a.profile_id
     WHERE a.status = 'active' AND pr.last_crawled_at IS NOT NULL
       AND (a.detected_through IS NULL OR pr.last_crawled_at > a.detected_through)
     ORDER BY a.id
     LIMIT :limit
       FOR UPDATE OF a SKIP LOCKED
),
hits AS (
    INSERT INTO alert_hits (alert_id, post_id, detected_at, score, views)
    SELECT a.id, po.id, :now,
           CASE WHEN a.trigger = 'rising' THEN po.rising_score ELSE sc.score END, po.views
      FROM due
      JOIN alerts a ON a.id = due.id
      JOIN posts po ON po.profile_id = a.profile_id
     CROSS JOIN LATERAL (SELECT {_SCORE_BY_WINDOW} AS score) sc
     WHERE po.deleted_at IS NULL
       AND po.published_at >= due.crawled_at - make_interval(days => a.post_age_days::int)
       AND CASE WHEN a.trigger = 'rising' THEN po.rising
                ELSE sc.score >= a.min_outlier_score END
    ON CONFLICT DO NOTHING
    RETURNING alert_id, post_id
),
moved AS (
    UPDATE alerts SET detected_through = due.crawled_at FROM due WHERE alerts.id = due.id
    RETURNING 1
)
SELECT (SELECT count(*) FROM moved),
       (SELECT COALESCE(array_agg(ARRAY[alert_id, post_id]), '{{}}') FROM hits)
""")


async def detect(
    session: AsyncSession, now: datetime, *, limit: int
) -> tuple[list[tuple[str, str]], int]:
    """Hits for active alerts whose profile was crawled since their last detection.
    Returns (the new (alert, post) hits, alerts checked)."""
    row = (await session.execute(_DETECT, {"now": now, "limit": limit})).one()
    return [(a, p) for a, p in row[1]], int(row[0])


# ---- digests --------------------------------------------------------------------------------


async def digest_candidates(session: AsyncSession, now: datetime) -> list[Row]:
    """Per confirmed address that may receive a digest now: its alerts' time settings."""
    pending = exists().where(AlertHit.alert_id == Alert.id, AlertHit.digest_id.is_(None))
    stmt = (
        select(Alert.account_id, Alert.email, Alert.timezone, Alert.send_hour)
        .join(AlertAddress, ADDRESS_JOIN)
        .outerjoin(ApiKey, ApiKey.id == Alert.key_id)
        .where(
            ApiKey.revoked_at.is_(None),  # nothing is charged through a revoked key
            Alert.status == "active",
            Alert.emails_sent < MAX_EMAILS,
            Alert.expires_at > now,
            AlertAddress.confirmed_at.is_not(None),
            (AlertAddress.last_digest_at.is_(None))
            | (AlertAddress.last_digest_at <= now - timedelta(hours=24)),
            (AlertAddress.digest_retry_at.is_(None)) | (AlertAddress.digest_retry_at <= now),
            pending,
        )
        .distinct()
    )
    return list((await session.execute(stmt)).mappings())


_SCORE_COLUMNS = {w: Post.__table__.c[f"score_{w}"] for w in WINDOWS}


async def pending_digest_rows(
    session: AsyncSession, account_id: str, email: str, now: datetime
) -> list[Row]:
    """Every pending hit of the address's active alerts, with what the email shows and the
    key that pays for the alert (`key_id`, `key_revoked`); the hits and alerts are locked."""
    stmt = (
        select(
            AlertHit.alert_id,
            AlertHit.post_id,
            AlertHit.score.label("hit_score"),
            Alert.key_id,
            ApiKey.revoked_at.is_not(None).label("key_revoked"),
            Alert.score_window,
            Alert.trigger,
            Alert.timezone,
            Alert.send_hour,
            Alert.created_at,
            Post.url,
            Post.views,
            Post.caption,
            Post.platform,
            Post.published_at,
            Profile.handle,
            *[c.label(f"score_{w}") for w, c in _SCORE_COLUMNS.items()],
        )
        .join(Alert, Alert.id == AlertHit.alert_id)
        .join(Post, Post.id == AlertHit.post_id)
        .join(Profile, Profile.id == Post.profile_id)
        .outerjoin(ApiKey, ApiKey.id == Alert.key_id)
        .where(
            Alert.account_id == account_id,
            Alert.email == email,
            Alert.status == "active",
            Alert.emails_sent < MAX_EMAILS,
            Alert.expires_at > now,
            AlertHit.digest_id.is_(None),
        )
        .order_by(Alert.created_at, Alert.id, Post.published_at.desc(), Post.id)
        .with_for_update(of=[AlertHit, Alert])
    )
    return list((await session.execute(stmt)).mappings())


async def assign_hits(
    session: AsyncSession, keys: Sequence[tuple[str, str]], digest_id: str
) -> None:
    for alert_id, post_id in keys:
        await session.execute(
            update(AlertHit)
            .where(AlertHit.alert_id == alert_id, AlertHit.post_id == post_id)
            .values(digest_id=digest_id)
            .execution_options(synchronize_session=False)
        )


async def release_hits(session: AsyncSession, digest_id: str) -> None:
    await session.execute(
        update(AlertHit)
        .where(AlertHit.digest_id == digest_id)
        .values(digest_id=None)
        .execution_options(synchronize_session=False)
    )


async def count_emails(
    session: AsyncSession, alert_ids: Sequence[str], delta: int, now: datetime
) -> None:
    await session.execute(
        update(Alert)
        .where(Alert.id.in_(list(alert_ids)))
        .values(emails_sent=Alert.emails_sent + delta, updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def exhausted_among(session: AsyncSession, alert_ids: Sequence[str]) -> list[str]:
    stmt = select(Alert.id).where(
        Alert.id.in_(list(alert_ids)), Alert.status == "active", Alert.emails_sent >= MAX_EMAILS
    )
    return list((await session.execute(stmt)).scalars())


async def owners(session: AsyncSession, alert_ids: Sequence[str]) -> dict[str, str]:
    """alert id -> its account id."""
    stmt = select(Alert.id, Alert.account_id).where(Alert.id.in_(alert_ids))
    return dict((await session.execute(stmt)).tuples().all())
