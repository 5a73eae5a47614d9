"""The bookkeeping of each delivery attempt (the delivery job in `sors.webhooks.tasks`):
what to send, the retry schedule, and disabling an endpoint (with one email to the owner)
when the schedule runs out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from enum import StrEnum

import orjson
import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.config import Settings
from sors.email import messages, outbox
from sors.events.models import WebhookAttempt, WebhookEndpoint
from sors.kit.clock import isoformat
from sors.webhooks import formats
from sors.webhooks import repository as repo
from sors.webhooks.schemas import DeliveryStatus
from sors.webhooks.sender import Outcome

log = structlog.get_logger("sors.webhooks")

# After the first attempt: the waits before each retry (about three days in all). The
# delivery fails for good when the last retry fails, and its endpoint is disabled.
RETRY_SCHEDULE = (
    timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
    timedelta(hours=5), *([timedelta(hours=10)] * 6),
)
DISABLED_REASON = "delivery_failures"
ENDPOINT_DISABLED = "endpoint_disabled"  # the error of deliveries failed by a disabling


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
    if d.status != DeliveryStatus.PENDING or d.attempts != attempts_before:
        return None
    if not ep.enabled:
        await repo.fail_pending(session, ep.id, now, ENDPOINT_DISABLED)
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
    if d is None or d.status != DeliveryStatus.PENDING:
        return None
    await repo.add_attempt(session, WebhookAttempt(
        delivery_id=d.id, attempted_at=now, response_status=outcome.status,
        duration_ms=outcome.duration_ms, error=outcome.error,
    ))
    d.attempts += 1
    d.last_attempt_at, d.response_status = now, outcome.status
    d.duration_ms, d.error = outcome.duration_ms, outcome.error
    if outcome.ok or d.manual:
        d.status = DeliveryStatus.SUCCEEDED if outcome.ok else DeliveryStatus.FAILED
        d.manual, d.next_attempt_at, d.finished_at = False, None, now
        return None
    if d.attempts <= len(RETRY_SCHEDULE):
        d.next_attempt_at = now + RETRY_SCHEDULE[d.attempts - 1]
        return None
    d.status, d.next_attempt_at, d.finished_at = DeliveryStatus.FAILED, None, now
    ep = await session.get(WebhookEndpoint, d.endpoint_id, with_for_update=True)
    if ep is None or not ep.enabled:
        return None
    ep.enabled, ep.disabled_reason, ep.disabled_at = False, DISABLED_REASON, now
    ep.updated_at = now
    await session.flush()
    await repo.fail_pending(session, ep.id, now, ENDPOINT_DISABLED)
    log.warning("webhooks.endpoint_disabled", endpoint=ep.id, account=ep.account_id)
    return Disabled(ep.account_id, ep.id, ep.url, outcome.error, d.attempts, now)


class Notice(StrEnum):
    """What became of the email telling the owner an endpoint was disabled."""

    SENT = "sent"
    DUPLICATE = "duplicate"  # this disabling was told already
    FAILED = "failed"
    NO_ADDRESS = "no_address"  # the account has no email address


async def notify_disabled(
    maker: async_sessionmaker[AsyncSession], settings: Settings, info: Disabled
) -> Notice:
    """Email the owner once per disabling (the outbox key makes a repeat a no-op)."""
    async with maker() as s:
        to = await repo.account_email(s, info.account_id)
    if not to:
        return Notice.NO_ADDRESS
    key = f"webhook_disabled:{info.endpoint_id}:{isoformat(info.at)}"

    def build(k: str) -> EmailMessage:
        return messages.webhook_disabled(
            to, info.endpoint_id, info.url, info.error, info.attempts,
            settings=settings, now=info.at, idempotency_key=k,
        )

    result = await outbox.send_once(
        maker, settings, key=key, kind="webhook_disabled", to=to,
        account_id=info.account_id, build=build,
    )
    return Notice(result.status)
