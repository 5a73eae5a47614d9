"""The delivery job: one attempt of one delivery.

The attempt is made outside any transaction and recorded afterwards. A worker killed in
between leaves the job to the reaper, which runs it again: the receiver may then see the
same event twice, always with the same `webhook-id` (at least once, never lost).
"""

from __future__ import annotations

from typing import Any

from sors.events.service import JOB_TYPE
from sors.jobs.engine import JobContext
from sors.queue.models import Job
from sors.webhooks import attempts, sender, ssrf


async def deliver(ctx: JobContext, job: Job) -> dict[str, Any]:
    delivery_id = job.payload["deliveryId"]
    async with ctx.db.transaction() as s:
        attempt = await attempts.prepare_attempt(
            s, delivery_id, int(job.payload.get("attempt", 0)), ctx.now()
        )
    if attempt is None:
        return {"deliveryId": delivery_id, "attempted": False}
    outcome = await sender.deliver(
        attempt.url, attempt.msg_id, attempt.body, attempt.secrets,
        policy=ssrf.Policy.from_settings(ctx.settings),
        timeout=ctx.settings.webhooks.timeout_seconds,
    )
    await ctx.runtime.clock.refresh()  # the attempt took time
    async with ctx.db.transaction() as s:
        disabled = await attempts.record_attempt(s, delivery_id, outcome, ctx.now())
    if disabled is not None:
        await attempts.notify_disabled(ctx.db.sessionmaker, ctx.settings, disabled)
    return {"deliveryId": delivery_id, "attempted": True, "ok": outcome.ok,
            "responseStatus": outcome.status}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {JOB_TYPE: deliver}
