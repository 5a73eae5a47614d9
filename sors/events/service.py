"""Announcing what happened: `emit` writes an event, one delivery per subscribed endpoint
and the job that makes each first attempt, all in the caller's transaction, so an event
exists exactly when the change it describes committed.

Each domain builds its own payloads and emits them (credits.* in billing, job.* in jobs,
alert.triggered in alerts, tracking.* in monitoring, analysis.completed in
analyses); asking who wants an event
costs a single indexed query when no endpoint does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.events import repository as repo
from sors.events.models import WebhookDelivery, WebhookEvent
from sors.kit.clock import isoformat
from sors.kit.ids import new_id
from sors.queue import repository as jobs_repo
from sors.queue.models import NewJob

EVENT_TYPES = (
    "job.completed",
    "job.failed",
    "alert.triggered",
    "tracking.new_posts",
    "tracking.paused",
    "post.changed",
    "post.rising",
    "credits.low",
    "credits.added",
    "subscription.updated",
    "invoice.paid",
    "analysis.completed",
)
TEST_EVENT = "webhook.test"
JOB_TYPE = "webhook"  # the job that makes one delivery attempt


async def emit(
    session: AsyncSession,
    account_id: str | None,
    type_: str,
    data: Mapping[str, object],
    *,
    at: datetime,
    endpoint_ids: Sequence[str] | None = None,
) -> str | None:
    """Record event `type_`, which happened `at`, for the account's subscribed endpoints (or
    exactly `endpoint_ids`); its id, or None when no endpoint wants it."""
    if account_id is None:
        return None
    if endpoint_ids is None:
        endpoint_ids = await repo.subscribed_endpoint_ids(session, account_id, type_)
    if not endpoint_ids:
        return None
    event_id = new_id("evt")
    await repo.insert_event(session, WebhookEvent(
        id=event_id, account_id=account_id, type=type_, occurred_at=at, data=dict(data),
    ))
    for endpoint_id in endpoint_ids:
        delivery_id = new_id("dlv")
        await repo.insert_delivery(session, WebhookDelivery(
            id=delivery_id, event_id=event_id, endpoint_id=endpoint_id, status="pending",
            next_attempt_at=at, created_at=at,
        ))
        await enqueue_attempt(session, delivery_id, 0)
    return event_id


async def accounts_wanting(
    session: AsyncSession, account_ids: Sequence[str], type_: str
) -> set[str]:
    """Which of `account_ids` have an enabled endpoint subscribed to `type_` (to skip
    building a payload nobody receives)."""
    return await repo.accounts_subscribed(session, account_ids, type_)


async def enqueue_attempt(session: AsyncSession, delivery_id: str, attempts_before: int) -> None:
    """The job that attempts a delivery now; one open job per delivery at most. The job
    names how many attempts the delivery had when it was queued, so a job run again after
    its attempt was recorded (a worker died before settling it) sends nothing, whatever
    any process's clock says."""
    await jobs_repo.insert_job(session, NewJob(
        id=new_id("job"), account_id=None, type=JOB_TYPE,
        payload={"deliveryId": delivery_id, "attempt": attempts_before},
        dedupe_key=f"webhook:{delivery_id}", credits_charged=0, max_attempts=5,
    ))


def envelope(
    event_id: str, type_: str, occurred_at: datetime, data: Mapping[str, object]
) -> dict[str, object]:
    """The body every receiver gets (Standard Webhooks' `type`, `timestamp`, `data`)."""
    return {"id": event_id, "type": type_, "timestamp": isoformat(occurred_at), "data": data}
