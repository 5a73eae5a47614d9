"""Idempotency-Key for every POST: same key + same body replays the stored answer (status,
body, credit headers) with `Idempotent-Replayed: true` and charges nothing again; a
different body is 422; a request still running under the key is 409. Kept 24 hours.

Keys are the API key's own: another key of the same account that sends the same
Idempotency-Key runs its own request and sees nothing of the first. An answer that holds a
secret (a new API key, a webhook signing secret) is not stored: the route marks it
(`withhold`), and a retry gets `409 already_created` naming what was made, never the secret.

The key is claimed with INSERT … ON CONFLICT DO NOTHING, so two concurrent requests with one
key cannot both run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import timedelta

import orjson
from sqlalchemy import delete, select, text, update
from sqlalchemy.dialects.postgresql import insert
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sors.kit import clock
from sors.kit.db import Database
from sors.kit.errors import IdempotencyKeyInUse, IdempotencyKeyReused, ValidationFailed
from sors.kit.models import IdempotencyRecord

TTL = timedelta(hours=24)
# A claim older than this whose request never finished (a crashed process) may be retaken.
STALE = timedelta(minutes=5)
_REPLAYED_HEADERS = ("content-type", "x-credits-charged", "x-credits-balance", "location")


@dataclass
class _Captured:
    """The answer as it went out, to store for replays."""

    status: int = 500
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    body: list[bytes] = field(default_factory=list)


def fingerprint(scope: Scope, body: bytes) -> str:
    try:
        canonical = orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body else b""
    except orjson.JSONDecodeError:
        canonical = body
    h = hashlib.sha256()
    for part in (scope.get("method", ""), scope.get("path", ""), scope.get("query_string", b"")):
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    h.update(canonical)
    return h.hexdigest()


WITHHELD = "idempotency_withheld"  # request state: the id of what a secret answer made


def withhold(state: object, resource_id: str) -> None:
    """Mark this request's answer (`request.state`, whose values live in the ASGI scope's
    state) as holding a secret: a retry under its Idempotency-Key answers `409
    already_created` naming `resource_id` instead of replaying it."""
    setattr(state, WITHHELD, resource_id)


async def run(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, *, body: bytes,
    account_id: str, key_id: str, key: str, db: Database,
) -> None:
    if not 1 <= len(key) <= 255:
        raise ValidationFailed.single("Idempotency-Key", "must be 1-255 characters")
    fp = fingerprint(scope, body)
    # The machine's clock, not the runtime's: a key's 24 hours and a claim's staleness are
    # real time on the server (a simulated clock may stand still or jump days), and the rows
    # are this module's own, read by nothing that reasons in service time.
    now = clock.utcnow()
    async with db.transaction() as s:
        await s.execute(
            delete(IdempotencyRecord).where(
                IdempotencyRecord.account_id == account_id,
                IdempotencyRecord.key_id == key_id,
                IdempotencyRecord.key == key,
                IdempotencyRecord.created_at < now - TTL,
            )
        )
        claimed = (
            await s.execute(
                insert(IdempotencyRecord)
                .values(account_id=account_id, key_id=key_id, key=key, fingerprint=fp,
                        state="running", created_at=now)
                .on_conflict_do_nothing()
                .returning(IdempotencyRecord.key)
            )
        ).first()
        if claimed is None:
            row = (
                await s.execute(
                    select(IdempotencyRecord)
                    .where(*_this(account_id, key_id, key))
                    .with_for_update()
                )
            ).scalar_one()
            if row.fingerprint != fp:
                raise IdempotencyKeyReused(
                    "This Idempotency-Key was already used with a different request body."
                )
            if row.state == "running":
                if row.created_at > now - STALE:
                    raise IdempotencyKeyInUse(
                        "A request with this Idempotency-Key is still being processed."
                    )
                row.created_at = now  # retake an abandoned claim
            else:
                await _replay(row, send)
                return

    captured = _Captured()

    async def capture(message: Message) -> None:
        if message["type"] == "http.response.start":
            captured.status = message["status"]
            captured.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            captured.body.append(message.get("body", b""))
        await send(message)

    try:
        await app(scope, receive, capture)
    except BaseException:
        await _release(db, account_id, key_id, key)
        raise
    if captured.status >= 500:
        await _release(db, account_id, key_id, key)
        return
    headers = {
        k.decode().lower(): v.decode("latin-1")
        for k, v in captured.headers
        if k.decode().lower() in _REPLAYED_HEADERS
    }
    stored = b"".join(captured.body)
    withheld = scope.get("state", {}).get(WITHHELD)
    status = captured.status
    if withheld is not None and 200 <= status < 300:
        status, headers, stored = _already_created(str(withheld))
    async with db.transaction() as s:
        await s.execute(
            update(IdempotencyRecord)
            .where(*_this(account_id, key_id, key))
            .values(state="done", status_code=status, headers=headers, body=stored)
        )


def _this(account_id: str, key_id: str, key: str) -> tuple[object, ...]:
    return (IdempotencyRecord.account_id == account_id, IdempotencyRecord.key_id == key_id,
            IdempotencyRecord.key == key)


def _already_created(resource_id: str) -> tuple[int, dict[str, str], bytes]:
    """What a retry of an answer that held a secret gets: what was made, not the secret."""
    problem = {
        "type": "/errors/already_created", "title": "Already created", "status": 409,
        "detail": f"This Idempotency-Key already made {resource_id}; its secret was shown once, "
                  "in that answer, and is not kept.",
        "code": "already_created", "resourceId": resource_id,
    }
    return 409, {"content-type": "application/problem+json"}, orjson.dumps(problem)


async def _release(db: Database, account_id: str, key_id: str, key: str) -> None:
    async with db.transaction() as s:
        await s.execute(delete(IdempotencyRecord).where(*_this(account_id, key_id, key)))


async def _replay(row: IdempotencyRecord, send: Send) -> None:
    headers = [(k.encode(), v.encode("latin-1")) for k, v in (row.headers or {}).items()]
    headers.append((b"idempotent-replayed", b"true"))
    body = row.body or b""
    headers.append((b"content-length", str(len(body)).encode()))
    await send(
        {"type": "http.response.start", "status": row.status_code or 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def purge_expired(db: Database) -> int:
    async with db.transaction() as s:
        result = await s.execute(
            text("DELETE FROM idempotency_keys WHERE created_at < :cutoff"),
            {"cutoff": clock.utcnow() - TTL},
        )
        return int(getattr(result, "rowcount", 0) or 0)
