"""Webhook endpoints (at most 10 per account, free), their secrets, test events, the
delivery log and manual retries. What each delivery attempt does is in
`sors.webhooks.attempts`."""

from __future__ import annotations

import base64
import secrets as secrets_mod
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.events import repository as events_repo
from sors.events import service as events
from sors.events.models import WebhookEndpoint, WebhookSettings
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound
from sors.kit.ids import new_id
from sors.webhooks import repository as repo
from sors.webhooks import ssrf
from sors.webhooks.errors import UnsafeUrl, WebhookDisabled, WebhookLimitReached
from sors.webhooks.schemas import (
    DeletedOut,
    DeliveryList,
    DeliveryOut,
    DeliveryStatus,
    SecretOut,
    SettingsIn,
    SettingsOut,
    TestOut,
    WebhookCreated,
    WebhookIn,
    WebhookOut,
    WebhookPatch,
)

MAX_ENDPOINTS = 10
ROTATION_OVERLAP = timedelta(hours=24)


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
) -> WebhookCreated:
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
    return WebhookCreated(**WebhookOut.of(ep, now).model_dump(), secret=secret)


async def list_endpoints(session: AsyncSession, account_id: str, now: datetime) -> list[WebhookOut]:
    return [WebhookOut.of(ep, now) for ep in await repo.list_endpoints(session, account_id)]


async def get(
    session: AsyncSession, account_id: str, endpoint_id: str, now: datetime
) -> WebhookOut:
    return WebhookOut.of(await _endpoint(session, account_id, endpoint_id), now)


async def update(
    session: AsyncSession, account_id: str, endpoint_id: str, body: WebhookPatch,
    policy: ssrf.Policy, now: datetime,
) -> WebhookOut:
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
    return WebhookOut.of(ep, now)


async def delete(session: AsyncSession, account_id: str, endpoint_id: str) -> DeletedOut:
    ep = await _endpoint(session, account_id, endpoint_id)
    await repo.delete_endpoint(session, ep.id)  # its deliveries go with it
    return DeletedOut(id=endpoint_id, status="deleted")


async def rotate_secret(
    session: AsyncSession, account_id: str, endpoint_id: str, now: datetime
) -> SecretOut:
    ep = await _endpoint(session, account_id, endpoint_id)
    ep.previous_secret = ep.secret
    ep.previous_secret_expires_at = now + ROTATION_OVERLAP
    ep.secret = new_secret()
    ep.updated_at = now
    await session.flush()
    return SecretOut(id=ep.id, secret=ep.secret,
                     previousSecretExpiresAt=isoformat(ep.previous_secret_expires_at))


async def send_test(
    session: AsyncSession, account_id: str, endpoint_id: str, now: datetime
) -> TestOut:
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
    return TestOut(eventId=event_id, deliveryId=delivery.id, status="pending")


async def threshold(session: AsyncSession, account_id: str) -> SettingsOut:
    row = await repo.settings_row(session, account_id)
    return SettingsOut(
        creditsLowThreshold=row.credits_low_threshold if row else events_repo.DEFAULT_CREDITS_LOW
    )


async def set_threshold(
    session: AsyncSession, account_id: str, body: SettingsIn, now: datetime
) -> SettingsOut:
    row = await repo.settings_row(session, account_id)
    if row is None:
        session.add(WebhookSettings(account_id=account_id,
                                    credits_low_threshold=body.creditsLowThreshold, updated_at=now))
    else:
        row.credits_low_threshold, row.updated_at = body.creditsLowThreshold, now
    await session.flush()
    return SettingsOut(creditsLowThreshold=body.creditsLowThreshold)


# ---- the delivery log ---------------------------------------------------------------------


async def deliveries(
    session: AsyncSession, account_id: str, endpoint_id: str, *, limit: int,
    before: str | None, status: DeliveryStatus | None,
) -> DeliveryList:
    ep = await _endpoint(session, account_id, endpoint_id)
    rows = await repo.list_deliveries(session, ep.id, limit=limit + 1, before=before, status=status)
    page = rows[:limit]
    attempts = await repo.attempts_of(session, [d.id for d, _ in page])
    return DeliveryList(results=[DeliveryOut.of(d, ev, attempts[d.id]) for d, ev in page],
                        hasMore=len(rows) > limit)


async def retry(
    session: AsyncSession, account_id: str, endpoint_id: str, delivery_id: str, now: datetime
) -> DeliveryOut:
    """One more attempt of a delivery, now, outside the automatic schedule."""
    ep = await _endpoint(session, account_id, endpoint_id)
    found = await repo.get_delivery(session, ep.id, delivery_id)
    if found is None:
        raise NotFound(f"No delivery {delivery_id!r} for this endpoint.")
    if not ep.enabled:
        raise WebhookDisabled("The endpoint is disabled; enable it with PATCH before retrying.")
    d, ev = found
    if d.status != DeliveryStatus.PENDING:
        d.status, d.manual, d.finished_at = DeliveryStatus.PENDING, True, None
    d.next_attempt_at = now
    await session.flush()
    await events.enqueue_attempt(session, d.id, d.attempts)
    attempts = await repo.attempts_of(session, [d.id])
    return DeliveryOut.of(d, ev, attempts[d.id])
