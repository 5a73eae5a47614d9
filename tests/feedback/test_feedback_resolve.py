from __future__ import annotations

import email
from email import policy

import httpx

from sors.feedback import service
from tests.factories import auth, create_account


async def test_resolving_feedback_with_wants_update_emails_the_account(
    client: httpx.AsyncClient, db, settings, runtime
) -> None:
    _, key = await create_account(db, email="anna@example.com")
    r = await client.post(
        "/api/v1/feedback",
        json={"message": "The trends endpoint misses reels", "skill": "niche_trends",
              "wantsUpdate": True},
        headers=auth(key),
    )
    fid = r.json()["feedbackId"]
    before = set(settings.outbox_dir.glob("*.eml")) if settings.outbox_dir.exists() else set()
    async with db.transaction() as s:
        f, emailed = await service.resolve(s, settings, fid, now=runtime.now(),
                                           note="Reels are included now.")
    assert emailed and f.status == "resolved"
    new = set(settings.outbox_dir.glob("*.eml")) - before
    assert len(new) == 1
    msg = email.message_from_bytes(new.pop().read_bytes(), policy=policy.default)
    assert msg["To"] == "anna@example.com"
    text = msg.get_body(("plain",)).get_content()
    assert fid in text and "Reels are included now." in text
    # Resolving again sends nothing more.
    async with db.transaction() as s:
        _, again = await service.resolve(s, settings, fid, now=runtime.now())
    assert not again
    assert len(set(settings.outbox_dir.glob("*.eml")) - before) == 1
