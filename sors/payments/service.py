"""Top-up links, keyless checkout, and completing payments: credits are granted exactly once
per checkout session; what waits for the credits (paused monitoring) resumes in the
payment's transaction."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import structlog
from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as accounts_repo
from sors.accounts import service as accounts
from sors.accounts.models import Account
from sors.billing import service as billing
from sors.billing.pricing import Pack, get_pricing, number
from sors.billing.schemas import TopupLink
from sors.config import Settings
from sors.kit.clock import isoformat
from sors.kit.errors import RateLimited, Unavailable, ValidationFailed
from sors.kit.ids import new_id
from sors.kit.runtime import Runtime
from sors.payments.models import CheckoutSession, PaymentEvent
from sors.payments.providers import (
    SUBSCRIPTION_KINDS,
    CheckoutCreationError,
    CheckoutRequest,
    PaymentProvider,
)
from sors.payments.providers import PaymentEvent as ProviderEvent

log = structlog.get_logger("sors.checkout")

LINK_LIFETIME = timedelta(hours=24)
RATE_WINDOW = timedelta(hours=1)
KEYLESS_PACK = "pack_s"
_LOCK_CLASS = 0x534F5253 + 2  # advisory lock class: top-up links of one account


# In-process events, heard by listeners the wiring module names (`sors.wiring`):
# - "a checkout paid into an existing account", in the payment's transaction, before the
#   account row is locked: `(session, account_id, now, rt)`;
# - Stripe's subscription and invoice events, which are the subscriptions feature's (it
#   sits above payments): `(session, event, now, rt) -> outcome` (a StrEnum of its own).
CREDITS_ARRIVING = "payments.credits_arriving"
SUBSCRIPTION_EVENT = "payments.subscription_event"


async def credits_arriving(
    session: AsyncSession, account_id: str, now: datetime, rt: Runtime
) -> None:
    """What waits for credits (paused monitoring) runs before a grant locks the account row:
    the scheduler's refresh takes its locks in that order too, so the two cannot deadlock."""
    for listener in rt.registries.listening(CREDITS_ARRIVING):
        await listener(session, account_id, now, rt)


def pack(pack_id: str) -> Pack:
    packs = get_pricing().packs
    if pack_id not in packs:
        raise ValidationFailed.single("packId", f"Unknown pack; one of {', '.join(packs)}.")
    return packs[pack_id]


def _urls(settings: Settings, session_id: str) -> tuple[str, str]:
    base = settings.base_url.rstrip("/")
    return f"{base}/checkout/{session_id}/done", f"{base}/checkout/{session_id}/cancelled"


async def _open(
    session: AsyncSession,
    provider: PaymentProvider,
    settings: Settings,
    *,
    p: Pack,
    account_id: str | None,
    email: str | None,
    now: datetime,
) -> CheckoutSession:
    cs_id = new_id("cs")
    success, cancel = _urls(settings, cs_id)
    try:
        link = await provider.create_checkout(
            CheckoutRequest(
                session_id=cs_id,
                pack_id=p.pack_id,
                credits=p.credits,
                price_usd=p.price_usd,
                account_id=account_id,
                email=email,
                success_url=success,
                cancel_url=cancel,
                expires_at=now + LINK_LIFETIME,
            )
        )
    except CheckoutCreationError as exc:
        err = Unavailable("The payment provider is not available; try again shortly.")
        err.headers["Retry-After"] = "30"
        raise err from exc
    cs = CheckoutSession(
        id=cs_id,
        account_id=account_id,
        pack_id=p.pack_id,
        credits=p.credits,
        price_cents=p.price_cents,
        email=email,
        provider=provider.name,
        provider_session_id=link.provider_session_id,
        checkout_url=link.checkout_url,
        status="open",
        created_at=now,
        expires_at=min(link.expires_at, now + LINK_LIFETIME),
    )
    session.add(cs)
    await session.flush()
    return cs


async def create_topup_link(
    session: AsyncSession,
    provider: PaymentProvider,
    settings: Settings,
    *,
    account_id: str,
    pack_id: str,
    now: datetime,
) -> TopupLink:
    p = pack(pack_id)
    # Serialise this account's link creation so the per-hour count is exact under
    # concurrency (an advisory lock, held across the provider call without blocking the
    # account's charges).
    await session.execute(
        text("SELECT pg_advisory_xact_lock(:c, hashtext(:a))"), {"c": _LOCK_CLASS, "a": account_id}
    )
    since = now - RATE_WINDOW
    count, oldest = (
        await session.execute(
            select(func.count(), func.min(CheckoutSession.created_at)).where(
                CheckoutSession.account_id == account_id, CheckoutSession.created_at > since
            )
        )
    ).one()
    limit = settings.rate_limits.topup_links_per_hour
    if count >= limit:
        retry = max(1, math.ceil((oldest + RATE_WINDOW - now).total_seconds()))
        raise RateLimited(
            retry, f"At most {limit} top-up links per hour; retry in {retry} seconds."
        )
    cs = await _open(session, provider, settings, p=p, account_id=account_id, email=None, now=now)
    return TopupLink(
        packId=p.pack_id, credits=p.credits, priceUsd=number(p.price_usd),
        checkoutUrl=cs.checkout_url, expiresAt=isoformat(cs.expires_at),
    )


async def create_keyless(
    session: AsyncSession,
    provider: PaymentProvider,
    settings: Settings,
    *,
    email: str | None,
    now: datetime,
) -> CheckoutSession:
    return await _open(
        session, provider, settings, p=pack(KEYLESS_PACK), account_id=None, email=email, now=now
    )


async def get(
    session: AsyncSession, session_id: str, *, lock: bool = False
) -> CheckoutSession | None:
    stmt = select(CheckoutSession).where(CheckoutSession.id == session_id)
    if lock:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


def is_expired(cs: CheckoutSession, now: datetime) -> bool:
    return cs.status == "expired" or (cs.status == "open" and now >= cs.expires_at)


# ---- completing a payment -----------------------------------------------------------------


class CheckoutOutcome(StrEnum):
    COMPLETED = "completed"
    ALREADY_COMPLETED = "already_completed"
    EXPIRED = "expired"
    DUPLICATE = "duplicate"  # a provider event seen before: nothing done again
    UNKNOWN = "unknown"  # no such checkout, or an event about none of ours


@dataclass
class Completion:
    # A subscription event's outcome is its handler's (`sors.subscriptions.events`).
    outcome: CheckoutOutcome | StrEnum
    checkout: CheckoutSession | None = None
    account_id: str | None = None
    api_key: str | None = None  # keyless: the new key, to show or email once


async def _fulfil_keyless(session: AsyncSession, cs: CheckoutSession, now: datetime) -> str:
    """Create the buyer's account with the pack's credits and a first key."""
    account = Account(id=new_id("acc"), email=cs.email, balance=0)
    await accounts_repo.add(session, account)
    await billing.grant(
        session,
        account.id,
        cs.credits,
        kind="topup",
        reason=f"keyless checkout ({cs.pack_id})",
        now=now,
        external_ref=f"checkout:{cs.id}",
    )
    cs.fulfilled_account_id = account.id
    await session.flush()
    return await accounts.create_key(session, account.id, name="keyless checkout")


async def complete(
    session: AsyncSession,
    session_id: str,
    now: datetime,
    *,
    enforce_expiry: bool,
    issue_key: bool,
    rt: Runtime,
) -> Completion:
    """Mark the checkout paid and grant its credits, exactly once. `enforce_expiry`: the
    local checkout refuses an expired session (a provider's own expiry is authoritative
    for its payments). `issue_key`: a keyless buyer gets the key now."""
    cs = await get(session, session_id, lock=True)
    if cs is None:
        return Completion(CheckoutOutcome.UNKNOWN)
    if cs.status == "completed":
        paid_into = cs.account_id or cs.fulfilled_account_id
        return Completion(CheckoutOutcome.ALREADY_COMPLETED, cs, paid_into)
    if cs.status == "expired" or (enforce_expiry and is_expired(cs, now)):
        return Completion(CheckoutOutcome.EXPIRED, cs)
    cs.status = "completed"
    cs.completed_at = now
    if cs.account_id is not None:
        # What waits for this payment (monitoring paused for credits: `sors.wiring` connects
        # it) runs before the account row is locked.
        await credits_arriving(session, cs.account_id, now, rt)
        await billing.grant(
            session,
            cs.account_id,
            cs.credits,
            kind="topup",
            reason=f"top-up {cs.pack_id}",
            now=now,
            external_ref=f"checkout:{cs.id}",
        )
        await session.flush()
        return Completion(CheckoutOutcome.COMPLETED, cs, cs.account_id)
    key = None
    if issue_key or cs.email:
        key = await _fulfil_keyless(session, cs, now)
        if issue_key:
            cs.key_revealed_at = now
    await session.flush()
    log.info("checkout.keyless_paid", session=cs.id, account=cs.fulfilled_account_id)
    return Completion(CheckoutOutcome.COMPLETED, cs, cs.fulfilled_account_id, key)


async def reveal_key(session: AsyncSession, session_id: str, now: datetime) -> str | None:
    """A keyless buyer whose key was not shown at payment (Stripe) sees one, once."""
    cs = await get(session, session_id, lock=True)
    if cs is None or cs.status != "completed" or cs.account_id is not None:
        return None
    if cs.key_revealed_at is not None:
        return None
    if cs.fulfilled_account_id is None:
        key = await _fulfil_keyless(session, cs, now)
    else:
        key = await accounts.create_key(session, cs.fulfilled_account_id, name="keyless checkout")
    cs.key_revealed_at = now
    await session.flush()
    return key


async def handle_event(
    session: AsyncSession, event: ProviderEvent, now: datetime, rt: Runtime
) -> Completion:
    """Act on one verified provider event, at most once per event id."""
    recorded = (
        await session.execute(
            insert(PaymentEvent)
            .values(
                event_id=event.event_id,
                provider="stripe",
                event_type=event.event_type[:100],
                session_id=(event.session_id or "")[:64] or None,
            )
            .on_conflict_do_nothing()
            .returning(PaymentEvent.event_id)
        )
    ).first()
    if recorded is None:
        return Completion(CheckoutOutcome.DUPLICATE)
    if event.kind in SUBSCRIPTION_KINDS or event.subscription is not None:
        outcome: CheckoutOutcome | StrEnum = CheckoutOutcome.UNKNOWN
        for listener in rt.registries.listening(SUBSCRIPTION_EVENT):
            outcome = await listener(session, event, now, rt)
        return Completion(outcome)
    if not event.session_id:
        return Completion(CheckoutOutcome.UNKNOWN)
    cs = await get(session, event.session_id, lock=True)
    if cs is None or cs.provider != "stripe":
        log.warning("checkout.event_for_unknown_session", event=event.event_id)
        return Completion(CheckoutOutcome.UNKNOWN)
    if event.kind == "checkout_expired":
        if cs.status == "open":
            cs.status = "expired"
            await session.flush()
        return Completion(CheckoutOutcome.EXPIRED, cs)
    if event.kind != "checkout_completed":
        return Completion(CheckoutOutcome.UNKNOWN, cs)
    if event.amount_cents is not None and event.amount_cents < cs.price_cents:
        log.error(
            "checkout.amount_mismatch", session=cs.id, paid=event.amount_cents, price=cs.price_cents
        )
        return Completion(CheckoutOutcome.UNKNOWN, cs)
    return await complete(session, cs.id, now, enforce_expiry=False, issue_key=False, rt=rt)
