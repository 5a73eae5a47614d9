"""Sending email through the configured backend (file outbox by default, or SMTP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sors.config import Settings
from sors.email import backends, messages

if TYPE_CHECKING:
    from sors.feedback.models import Feedback


async def send_feedback_resolved(settings: Settings, *, to: str, feedback: Feedback) -> str:
    excerpt = feedback.message if len(feedback.message) <= 200 else feedback.message[:197] + "…"
    msg = messages.feedback_resolved(
        to, feedback.id, excerpt, feedback.resolution_note or "", settings=settings
    )
    return await backends.get_backend(settings).send(msg)
