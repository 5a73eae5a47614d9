"""Webhook endpoints (at most 10 per account, free), their secrets, test events, the
delivery log and manual retries; and the bookkeeping of each delivery attempt: the retry
schedule, and disabling an endpoint (with one email to the owner) when it runs out."""

from __future__ import annotations

import base64
import secrets as secrets_mod
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson
import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.config import Settings
from sors.email import messages, outbox
from sors.events import repository as events_repo
from sors.events import service as events
from sors.events.models import WebhookEndpoint, WebhookSettings
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound, UnsafeUrl, WebhookDisabled, WebhookLimitReached
from sors.kit.ids import new_id
from sors.webhooks import formats, ssrf
from sors.webhooks import repository as repo
from sors.webhooks.schemas import (
    SettingsIn,
    WebhookIn,
    WebhookPatch,
    delivery_record,
    endpoint_record,
)
from sors.webhooks.sender import Outcome

log = structlog.get_logger("sors.webhooks")

MAX_ENDPOINTS = 10
ROTATION_OVERLAP = timedelta(hours=24)
# After the first attempt: the waits before each retry (about three days in all). The
# delivery fails for good when the last retry fails, and its endpoint is disabled.
RETRY_SCHEDULE = (
    timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
    timedelta(hours=5), *([timedelta(hours=10)] * 6),
)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets_mod.token_bytes(32)).decode()


async def _checked_url(url: str, policy: ssrf.Policy) -> str:
    try:
        await ssrf.validate(url, policy)
    except ssrf.UnsafeUrl as exc:
        raise UnsafeUrl(f"The webhook URL is refused: {exc}.", errors=[
            {"field": "url", "message": str(exc)}
        ]) from exc
    return url


async def _endpoint(session: AsyncSession, account_id: str, endpoint_id: str) -> WebhookEndpoint:
    ep = await repo.get_endpoint(session, account_id, endpoint_id, for_update=True)
    if ep is None:  # another account's endpoint is indistinguishable from a missing one
        raise NotFound(f"No webhook endpoint {endpoint_id!r} for this account.")
    return ep


# ---- endpoints ----------------------------------------------------------------------------


async def create(
    session: AsyncSession, account_id: str, body: WebhookIn, policy: ssrf.Policy, now: datetime
) -> dict[str, Any]:
    url = await _checked_url(body.url, policy)
    await repo.lock_account(session, account_id)
    if await repo.count_endpoints(session, account_id) >= MAX_ENDPOINTS:
        raise WebhookLimitReached(
            f"An account can have at most {MAX_ENDPOINTS} webhook endpoints; delete one first."
        )
    secret = new_secret()
    ep = WebhookEndpoint(
        id=new_id("whk"), account_id=account_id, url=url, description=body.description,
        events=list(body.events or events.EVENT_TYPES), enabled=body.enabled, secret=secret,
        format=body.format, created_at=now, updated_at=now,
    )
    session.add(ep)
    await session.flush()
    return {**endpoint_record(ep, now), "secret": secret}


async def list_endpoints(session: AsyncSession, account_id: str, now: datetime) -> list[dict[str, Any]]:
    return [endpoint_record(ep, now) for ep in await repo.list_endpoints(session, account_id)]


async def get(session: AsyncSession, account_id: str, endpoint_id: str, now: datetime) -> dict[str, Any]:
    return endpoint_record(await _endpoint(session, account_id, endpoint_id), now)


async def update(
    session: AsyncSession, account_id: str, endpoint_id: str, body: WebhookPatch,
    policy: ssrf.Policy, now: datetime,
) -> dict[str, Any]:
    ep = await _endpoint(session, account_id, endpoint_id)
    given = body.model_fields_set
    if "url" in given and body.url is not None:
        ep.url = await _checked_url(body.url, policy)
    if "description" in given:
        ep.description = body.description
    if "events" in given:
        ep.events = list(body.events or events.EVENT_TYPES)
    if "format" in given and body.format is not None:
        ep.format = body.format
    if "enabled" in given and body.enabled is not None:
        ep.enabled = body.enabled
        if body.enabled:
            ep.disabled_reason, ep.disabled_at = None, None
    ep.updated_at = now
    await session.flush()
    return endpoint_record(ep, now)


async def delete(session: AsyncSession, account_id: str, endpoint_id: str) -> dict[str, Any]:
    ep = await _endpoint(session, account_id, endpoint_id)
    await repo.delete_endpoint(session, ep.id)  # its deliveries go with it
    return {"id": endpoint_id, "status": "deleted"}


async def rotate_secret(
    session: AsyncSession, account_id: str, endpoint_id: str, now: datetime
) -> dict[str, Any]:
    ep = await _endpoint(session, account_id, endpoint_id)
    ep.previous_secret = ep.secret
    ep.previous_secret_expires_at = now + ROTATION_OVERLAP
    ep.secret = new_secret()
    ep.updated_at = now
    await session.flush()
    return {"id": ep.id, "secret": ep.secret,
            "previousSecretExpiresAt": isoformat(ep.previous_secret_expires_at)}


async def send_test(
    session: AsyncSession, account_id: str, endpoint_id: str, now: datetime
) -> dict[str, Any]:
    ep = await _endpoint(session, account_id, endpoint_id)
    if not ep.enabled:
        raise WebhookDisabled("The endpoint is disabled; enable it with PATCH first.")
    event_id = await events.emit(
        session, account_id, events.TEST_EVENT,
        {"endpointId": ep.id, "message": "A test event from sors."},
        endpoint_ids=[ep.id], at=now,
    )
    assert event_id is not None
    [(delivery, _)] = await repo.list_deliveries(session, ep.id, limit=1, before=None, status=None)
    return {"eventId": event_id, "deliveryId": delivery.id, "status": "pending"}


async def get_settings(session: AsyncSession, account_id: str) -> dict[str, Any]:
    row = await repo.get_settings_row(session, account_id)
    return {"creditsLowThreshold": row.credits_low_threshold if row else events_repo.DEFAULT_CREDITS_LOW}


async def put_settings(
    session: AsyncSession, account_id: str, body: SettingsIn, now: datetime
) -> dict[str, Any]:
    row = await repo.get_settings_row(session, account_id)
    if row is None:
        session.add(WebhookSettings(account_id=account_id,
                                    credits_low_threshold=body.creditsLowThreshold, updated_at=now))
    else:
        row.credits_low_threshold, row.updated_at = body.creditsLowThreshold, now
    await session.flush()
    return {"creditsLowThreshold": body.creditsLowThreshold}


# ---- the delivery log ---------------------------------------------------------------------


async def deliveries(
    session: AsyncSession, account_id: str, endpoint_id: str, *, limit: int,
    before: str | None, status: str | None,
) -> dict[str, Any]:
    ep = await _endpoint(session, account_id, endpoint_id)
    rows = await repo.list_deliveries(session, ep.id, limit=limit + 1, before=before, status=status)
    page = rows[:limit]
    attempts = await repo.attempts_of(session, [d.id for d, _ in page])
    return {"results": [delivery_record(d, ev, attempts[d.id]) for d, ev in page],
            "hasMore": len(rows) > limit}


async def retry(
    session: AsyncSession, account_id: str, endpoint_id: str, delivery_id: str, now: datetime
) -> dict[str, Any]:
    """One more attempt of a delivery, now, outside the automatic schedule."""
    ep = await _endpoint(session, account_id, endpoint_id)
    found = await repo.get_delivery(session, ep.id, delivery_id)
    if found is None:
        raise NotFound(f"No delivery {delivery_id!r} for this endpoint.")
    if not ep.enabled:
        raise WebhookDisabled("The endpoint is disabled; enable it with PATCH before retrying.")
    d, ev = found
    if d.status != "pending":
        d.status, d.manual, d.finished_at = "pending", True, None
    d.next_attempt_at = now
    await session.flush()
    await events.enqueue_attempt(session, d.id, d.attempts)
    attempts = await repo.attempts_of(session, [d.id])
    return delivery_record(d, ev, attempts[d.id])


# ---- attempts (the delivery job) ------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    delivery_id: str
    url: str
    msg_id: str
    body: str
    secrets: list[str]


@dataclass(frozen=True)
class Disabled:
    account_id: str
    endpoint_id: str
    url: str
    error: str | None
    attempts: int
    at: datetime


async def prepare_attempt(
    session: AsyncSession, delivery_id: str, attempts_before: int, now: datetime
) -> Attempt | None:
    """What to send, or None when this job's attempt already happened (settled, or
    recorded and waiting for its retry). A delivery to a disabled endpoint fails here
    without a request."""
    found = await repo.delivery_for_attempt(session, delivery_id)
    if found is None:
        return None
    d, ep, ev = found
    if d.status != "pending" or d.attempts != attempts_before:
        return None
    if not ep.enabled:
        await repo.fail_pending(session, ep.id, now, "endpoint_disabled")
        return None
    keys = [ep.secret]
    if ep.previous_secret and ep.previous_secret_expires_at and ep.previous_secret_expires_at > now:
        keys.append(ep.previous_secret)
    body = orjson.dumps(formats.body(ep.format, ev.id, ev.type, ev.occurred_at, ev.data)).decode()
    return Attempt(d.id, ep.url, ev.id, body, keys)


async def record_attempt(
    session: AsyncSession, delivery_id: str, outcome: Outcome, now: datetime
) -> Disabled | None:
    """Log the attempt and move the delivery on: done, retry later, or failed for good
    (which disables the endpoint: returned so the owner can be told after the commit)."""
    d = await repo.lock_delivery(session, delivery_id)
    if d is None or d.status != "pending":
        return None
    await repo.add_attempt(session, {
        "delivery_id": d.id, "attempted_at": now, "response_status": outcome.status,
        "duration_ms": outcome.duration_ms, "error": outcome.error,
    })
    d.attempts += 1
    d.last_attempt_at, d.response_status = now, outcome.status
    d.duration_ms, d.error = outcome.duration_ms, outcome.error
    if outcome.ok or d.manual:
        d.status = "succeeded" if outcome.ok else "failed"
        d.manual, d.next_attempt_at, d.finished_at = False, None, now
        return None
    if d.attempts <= len(RETRY_SCHEDULE):
        d.next_attempt_at = now + RETRY_SCHEDULE[d.attempts - 1]
        return None
    d.status, d.next_attempt_at, d.finished_at = "failed", None, now
    ep = await session.get(WebhookEndpoint, d.endpoint_id, with_for_update=True)
    if ep is None or not ep.enabled:
        return None
    ep.enabled, ep.disabled_reason, ep.disabled_at, ep.updated_at = False, "delivery_failures", now, now
    await session.flush()
    await repo.fail_pending(session, ep.id, now, "endpoint_disabled")
    log.warning("webhooks.endpoint_disabled", endpoint=ep.id, account=ep.account_id)
    return Disabled(ep.account_id, ep.id, ep.url, outcome.error, d.attempts, now)


async def notify_disabled(
    maker: async_sessionmaker[AsyncSession], settings: Settings, info: Disabled
) -> str:
    """Email the owner once per disabling (the outbox key makes a repeat a no-op)."""
    async with maker() as s:
        to = await repo.account_email(s, info.account_id)
    if not to:
        return "no_address"
    key = f"webhook_disabled:{info.endpoint_id}:{isoformat(info.at)}"

    def build(k: str):
        return messages.webhook_disabled(
            to, info.endpoint_id, info.url, info.error, info.attempts,
            settings=settings, now=info.at, idempotency_key=k,
        )

    result = await outbox.send_once(
        maker, settings, key=key, kind="webhook_disabled", to=to,
        account_id=info.account_id, build=build,
    )
    return result.status
