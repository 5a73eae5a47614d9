"""kill -9 of the worker in the middle of deliveries: every event still arrives at least
once, and any duplicate carries the same webhook-id (and body) as the first copy."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

from sors.billing import service as billing
from tests.factories import create_account
from tests.factories.accounts import sim_now
from tests.factories.cluster import SorsProcess
from tests.webhooks.helpers import count, create_endpoint
from tests.webhooks.receiver import running_receiver

EVENTS = 40


def worker_env(pg_url: str, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env.update({
        "SORS_DATABASE_URL": pg_url, "SORS_DATA_DIR": str(data_dir), "SORS_PLATFORM_SOURCE": "sim",
        "SORS_SECRET_KEY": "test-secret-key-not-for-production", "SORS_LOG_LEVEL": "WARNING",
        "SORS_WEBHOOKS_ALLOW_HTTP": "true", "SORS_WEBHOOKS_ALLOW_LOOPBACK": "true",
        "SORS_JOB_STALL_SECONDS": "5", "SORS_WORKER_CONCURRENCY": "4",
    })
    return env


async def test_kill_9_mid_delivery_loses_nothing(
    client: httpx.AsyncClient, db, settings, pg_url, loopback_allowed
) -> None:
    account_id, key = await create_account(db)
    logdir = Path(tempfile.mkdtemp(prefix="sors-whk-kill-"))
    env = worker_env(pg_url, logdir)
    with running_receiver(delay=0.3) as receiver:
        ep = await create_endpoint(client, key, receiver.url, events=["credits.added"])
        for i in range(EVENTS):
            async with db.transaction() as s:
                await billing.grant(s, account_id, 1, reason=f"grant {i}", now=await sim_now(db))
        assert await count(db, "SELECT count(*) FROM webhook_events") == EVENTS

        first = SorsProcess("worker-1", ["worker"], env, logdir)
        second = None
        try:
            assert receiver.wait_for(lambda got: len(got) >= 8, timeout=60), first.describe()
            os.killpg(first.pid, signal.SIGKILL)
            first.proc.wait(timeout=10)
            in_flight = await count(
                db, "SELECT count(*) FROM jobs WHERE type = 'webhook' AND status = 'processing'")
            assert in_flight > 0  # the kill really interrupted deliveries
            got_before = len(receiver.received)
            assert got_before < EVENTS

            second = SorsProcess("worker-2", ["worker"], env, logdir)
            ids_needed = EVENTS
            ok = receiver.wait_for(lambda got: len({r.id for r in got}) >= ids_needed, timeout=90)
            assert ok, second.describe()
            deadline = time.time() + 30
            while time.time() < deadline and await count(
                db, "SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded'"
            ):
                time.sleep(0.2)
        finally:
            for proc in (first, second):
                if proc is not None:
                    proc.stop()

    by_id: dict[str, list] = defaultdict(list)
    for r in receiver.received:
        r.verify(ep["secret"])
        by_id[r.id].append(r)
    async with db.session() as s:
        from sqlalchemy import text

        event_ids = set((await s.execute(text("SELECT id FROM webhook_events"))).scalars())
    assert set(by_id) == event_ids and len(event_ids) == EVENTS
    for copies in by_id.values():
        assert len({c.body for c in copies}) == 1  # a duplicate is the same event, same id
        assert copies[0].payload["id"] == copies[0].id
    assert await count(
        db, "SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'") == EVENTS
    duplicates = sum(len(c) - 1 for c in by_id.values())
    assert duplicates <= in_flight + 4  # only what was interrupted is sent again
