"""Announcing what happened: `emit` writes an event, one delivery per subscribed endpoint
and the job that makes each first attempt, all in the caller's transaction, so an event
exists exactly when the change it describes committed.

The other functions are the one-call hooks the domains use (job settling, ledger entries,
alert detection, crawls of tracked profiles); each costs a single indexed query when the
account has no endpoint that wants the event.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.jobs import repository as jobs_repo
from sors.kit import clock
from sors.kit.clock import isoformat
from sors.kit.ids import new_id
from sors.webhooks import repository as repo

EVENT_TYPES = (
    "job.completed",
    "job.failed",
    "alert.triggered",
    "tracking.new_posts",
    "credits.low",
    "credits.added",
)
TEST_EVENT = "webhook.test"
JOB_TYPE = "webhook"
# Jobs the contract shows to callers; webhook deliveries are jobs too but never announced.
_ANNOUNCED_JOBS = ("crawl", "refresh", "transcription", "media", "remix")
_NEW_POSTS_IN_EVENT = 100


async def emit(
    session: AsyncSession,
    account_id: str | None,
    type_: str,
    data: dict[str, Any],
    *,
    endpoint_ids: Sequence[str] | None = None,
    at: datetime | None = None,
) -> str | None:
    """Record event `type_` for the account's subscribed endpoints (or exactly
    `endpoint_ids`); its id, or None when no endpoint wants it."""
    if account_id is None:
        return None
    if endpoint_ids is None:
        endpoint_ids = await repo.subscribed_endpoint_ids(session, account_id, type_)
    if not endpoint_ids:
        return None
    at = at or clock.now()
    event_id = new_id("evt")
    await repo.insert_event(
        session,
        {"id": event_id, "account_id": account_id, "type": type_, "occurred_at": at, "data": data},
    )
    for endpoint_id in endpoint_ids:
        delivery_id = new_id("dlv")
        await repo.insert_delivery(
            session,
            {"id": delivery_id, "event_id": event_id, "endpoint_id": endpoint_id,
             "status": "pending", "next_attempt_at": at, "created_at": at},
        )
        await enqueue_attempt(session, delivery_id, 0)
    return event_id


async def enqueue_attempt(session: AsyncSession, delivery_id: str, attempts_before: int) -> None:
    """The job that attempts a delivery now; one open job per delivery at most. The job
    names how many attempts the delivery had when it was queued, so a job run again after
    its attempt was recorded (a worker died before settling it) sends nothing, whatever
    any process's clock says."""
    await jobs_repo.insert_job(
        session,
        {"id": new_id("job"), "account_id": None, "type": JOB_TYPE,
         "payload": {"deliveryId": delivery_id, "attempt": attempts_before},
         "dedupe_key": f"webhook:{delivery_id}",
         "credits_charged": 0, "max_attempts": 5},
    )


def envelope(event_id: str, type_: str, occurred_at: datetime, data: dict[str, Any]) -> dict[str, Any]:
    """The body every receiver gets (Standard Webhooks' `type`, `timestamp`, `data`)."""
    return {"id": event_id, "type": type_, "timestamp": isoformat(occurred_at), "data": data}


# ---- hooks used by other domains ------------------------------------------------------------


async def job_settled(session: AsyncSession, job: Any) -> None:
    """`job.completed` / `job.failed` with the job record as GET /jobs/{jobRef} shows it."""
    if job.account_id is None or job.type not in _ANNOUNCED_JOBS:
        return
    if job.status not in ("completed", "failed"):
        return
    from sors.jobs.schemas import job_record

    await emit(session, job.account_id, f"job.{job.status}", job_record(job))


_LOOK_UP = object()


async def ledger_entry(
    session: AsyncSession, entry: dict[str, Any], *, low_threshold: Any = _LOOK_UP
) -> None:
    """After a ledger row was written (`entry` holds its column values): `credits.added`
    for top-ups and grants, `credits.low` when a charge took the balance from at or above
    the account's threshold to below it. A charge passes the threshold its own statement
    already read (`low_threshold`, None when no endpoint wants the event)."""
    kind, delta, after = entry["kind"], int(entry["delta"]), int(entry["balance_after"])
    if kind in ("topup", "grant"):
        await emit(session, entry["account_id"], "credits.added", _balance_data(entry))
    elif kind == "charge":
        threshold = (
            await repo.credits_low_threshold(session, entry["account_id"])
            if low_threshold is _LOOK_UP else low_threshold
        )
        if threshold is not None and after < threshold <= after - delta:
            data = _balance_data(entry)
            data["threshold"] = threshold
            await emit(session, entry["account_id"], "credits.low", data)


def _balance_data(entry: dict[str, Any]) -> dict[str, Any]:
    from sors.billing.pricing import get_pricing

    pricing = get_pricing()
    after = int(entry["balance_after"])
    return {
        "balance": after,
        "balanceUsd": float(pricing.to_usd(after)),
        "usdPerCredit": float(pricing.usd_per_credit),
        "entry": {  # the shape of GET /credits/ledger entries
            "entryId": entry["id"], "kind": entry["kind"], "credits": int(entry["delta"]),
            "balanceAfter": after, "reason": entry.get("reason"), "skill": entry.get("skill"),
            "requestId": entry.get("request_id"), "jobRef": entry.get("job_ref"),
            "refundOf": entry.get("refund_of"), "createdAt": isoformat(clock.now()),
        },
    }


async def alert_hits(session: AsyncSession, hits: Sequence[tuple[str, str]]) -> None:
    """`alert.triggered` for each new (alert, post) hit, when detected (the email digest
    is separate and later)."""
    if not hits:
        return
    owners = dict((await session.execute(
        text("SELECT id, account_id FROM alerts WHERE id = ANY(:ids)"),
        {"ids": list({a for a, _ in hits})},
    )).all())
    wanted = await repo.accounts_subscribed(session, list(owners.values()), "alert.triggered")
    if not wanted:
        return
    from sors.alerts import service as alerts
    from sors.catalog import service as catalog
    from sors.kit.errors import PostNotFound

    records: dict[str, dict[str, Any]] = {}
    for alert_id, post_id in hits:
        account_id = owners.get(alert_id)
        if account_id not in wanted:
            continue
        if alert_id not in records:
            records[alert_id] = await alerts.record(session, alert_id)
        try:  # the record GET /posts/{postId} answers
            post = await catalog.get_post(
                session, post_id, include_transcript=False, include_visual_analysis=False
            )
        except PostNotFound:
            continue
        window = records[alert_id]["scoreWindow"]
        await emit(session, account_id, "alert.triggered", {
            "alert": records[alert_id], "post": post,
            "outlierScore": post["outlier_scores"].get(window), "detectedAt": isoformat(clock.now()),
        })


async def tracking_new_posts(session: AsyncSession, profile_id: str, seen_at: datetime) -> None:
    """`tracking.new_posts` to every account monitoring a profile whose crawl just stored
    new posts (those first seen at `seen_at`), with the posts in the flattened shape."""
    trackers = list((await session.execute(
        text("SELECT account_id FROM tracked_profiles WHERE profile_id = :p"), {"p": profile_id}
    )).scalars())
    wanted = await repo.accounts_subscribed(session, trackers, "tracking.new_posts")
    if not wanted:
        return
    from sors.catalog import repository as catalog
    from sors.catalog.models import Post
    from sors.catalog.schemas import flat_post

    stmt = (
        catalog._posts_with_owner()  # the catalog's own post+owner columns
        .where(Post.profile_id == profile_id, Post.first_seen_at == seen_at)
        .order_by(Post.published_at, Post.id)
    )
    rows = [r._mapping for r in (await session.execute(stmt)).all()]
    if not rows:
        return
    posts = [flat_post(r) for r in rows]
    data = {
        "profileId": profile_id, "platform": posts[0]["platform"], "handle": posts[0]["handle"],
        "newPosts": len(posts), "posts": posts[:_NEW_POSTS_IN_EVENT],
        "truncated": len(posts) > _NEW_POSTS_IN_EVENT,
    }
    for account_id in sorted(wanted):
        await emit(session, account_id, "tracking.new_posts", data)
