"""Feedback from callers: submitted through the API, resolved by an operator (`sors feedback`),
with an email to the caller when they asked for an update."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as accounts_repo
from sors.config import Settings
from sors.email import backends, messages
from sors.feedback import repository as repo
from sors.feedback.models import Feedback
from sors.kit.ids import new_id


async def submit(
    session: AsyncSession, account_id: str, *, message: str, skill: str | None,
    wants_update: bool, request_id: str | None, now: datetime,
) -> Feedback:
    f = Feedback(
        id=new_id("fbk"), account_id=account_id, message=message, skill=skill,
        wants_update=wants_update, status="received", request_id=request_id, created_at=now,
    )
    await repo.add(session, f)
    return f


async def resolve(
    session: AsyncSession, settings: Settings, feedback_id: str, *, now: datetime,
    note: str | None = None,
) -> tuple[Feedback, bool]:
    """Mark resolved at `now`; email the account when it asked for an update. Returns
    (feedback, emailed). Resolving twice sends nothing the second time."""
    f = await repo.get_for_update(session, feedback_id)
    if f is None:
        raise LookupError(f"no feedback {feedback_id}")
    if f.status == "resolved":
        return f, False
    f.status = "resolved"
    f.resolved_at = now
    f.resolution_note = note
    emailed = False
    if f.wants_update:
        account = await accounts_repo.get_account(session, f.account_id)
        if account is not None and account.email:
            await _send_resolved(settings, to=account.email, feedback=f)
            emailed = True
    await session.flush()
    return f, emailed


async def list_feedback(
    session: AsyncSession, status: str | None, limit: int = 100
) -> list[Feedback]:
    return await repo.list_all(session, status, limit)


async def _send_resolved(settings: Settings, *, to: str, feedback: Feedback) -> str:
    excerpt = feedback.message if len(feedback.message) <= 200 else feedback.message[:197] + "…"
    msg = messages.feedback_resolved(
        to, feedback.id, excerpt, feedback.resolution_note or "", settings=settings,
        now=feedback.resolved_at or feedback.created_at,  # resolved_at was just set
    )
    return await backends.get_backend(settings).send(msg)
