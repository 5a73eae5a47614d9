"""The outbox: an event, its deliveries and their first attempts are written in the caller's
transaction, so they exist exactly when the change they announce committed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sors.events import service as events
from sors.events.models import WebhookEndpoint
from sors.kit.db import Database
from tests.factories import create_account
from tests.factories.world import rows, scalar

pytestmark = pytest.mark.usefixtures("clean")
AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


async def _endpoint(db: Database, account_id: str, endpoint_id: str, events_: list[str]) -> None:
    async with db.transaction() as s:
        s.add(WebhookEndpoint(id=endpoint_id, account_id=account_id, url="https://hooks.test/x",
                              events=events_, secret="whsec_x", created_at=AT, updated_at=AT))


async def test_an_event_goes_to_each_subscribed_endpoint_with_its_first_attempt(db) -> None:
    account_id, _ = await create_account(db)
    await _endpoint(db, account_id, "whe_a", ["job.completed"])
    await _endpoint(db, account_id, "whe_b", ["job.completed", "credits.low"])
    await _endpoint(db, account_id, "whe_c", ["credits.low"])
    async with db.transaction() as s:
        event_id = await events.emit(s, account_id, "job.completed", {"jobRef": "job_1"}, at=AT)
    assert event_id is not None
    [event] = await rows(db, "SELECT type, occurred_at, data FROM webhook_events")
    assert (event["type"], event["occurred_at"], event["data"]) == (
        "job.completed", AT, {"jobRef": "job_1"}
    )
    sent = await rows(db, "SELECT endpoint_id, status, next_attempt_at FROM webhook_deliveries "
                          "ORDER BY endpoint_id")
    assert [(d["endpoint_id"], d["status"], d["next_attempt_at"]) for d in sent] == [
        ("whe_a", "pending", AT), ("whe_b", "pending", AT)
    ]
    assert await scalar(db, "SELECT count(*) FROM jobs WHERE type = 'webhook'") == 2


async def test_nothing_is_written_when_nobody_listens_or_the_change_rolls_back(db) -> None:
    account_id, _ = await create_account(db)
    async with db.transaction() as s:
        assert await events.emit(s, account_id, "credits.low", {"balance": 1}, at=AT) is None
    await _endpoint(db, account_id, "whe_a", ["credits.low"])
    async with db.session() as s:
        await events.emit(s, account_id, "credits.low", {"balance": 1}, at=AT)
        await s.rollback()
    for table in ("webhook_events", "webhook_deliveries", "jobs"):
        assert await scalar(db, f"SELECT count(*) FROM {table}") == 0
