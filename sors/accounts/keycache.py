"""API key resolution with a short memory.

Every API request resolves its key; looking it up in the database each time is a round trip
(and a pool checkout) per request. Resolved keys are kept for at most `ttl` seconds, so a
revocation — made by any process, e.g. `sors keys revoke` — takes effect everywhere within
that time. Unknown keys are not remembered: a key created a moment ago works at once.
Concurrent requests with the same key share one lookup, so a burst on a cold (or just
expired) entry costs one query, not one per request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.service import authenticate, principal_for_key_id
from sors.kit.db import Database
from sors.kit.principal import Principal
from sors.kit.security import hash_api_key, looks_like_api_key

TTL_SECONDS = 1.0


class KeyCache:
    def __init__(self, ttl: float = TTL_SECONDS, max_entries: int = 10_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._known: dict[str, tuple[float, Principal]] = {}
        self._pending: dict[str, asyncio.Future[Principal | None]] = {}

    async def resolve(self, db: Database, key: str) -> Principal | None:
        if not looks_like_api_key(key):
            return None
        return await self._resolve(db, hash_api_key(key), lambda s: authenticate(s, key))

    async def resolve_id(self, db: Database, key_id: str) -> Principal | None:
        """The same, for an in-process caller that holds a key's id (a console session)."""
        return await self._resolve(db, "id:" + key_id, lambda s: principal_for_key_id(s, key_id))

    async def _resolve(
        self, db: Database, digest: str,
        lookup: Callable[[AsyncSession], Awaitable[Principal | None]],
    ) -> Principal | None:
        now = time.monotonic()
        hit = self._known.get(digest)
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        pending = self._pending.get(digest)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Principal | None] = asyncio.get_running_loop().create_future()
        self._pending[digest] = future
        try:
            async with db.session() as session:
                principal = await lookup(session)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waited
            raise
        except BaseException:
            future.cancel()
            raise
        else:
            future.set_result(principal)
        finally:
            del self._pending[digest]
        if principal is None:
            self._known.pop(digest, None)
            return None
        if len(self._known) >= self.max_entries:
            self._known.clear()  # bounded memory; the next requests simply look up again
        self._known[digest] = (now, principal)
        return principal

    def forget(self, key_id: str) -> None:
        """Drop a key revoked by this process at once (other processes within `ttl`)."""
        for digest, (_, principal) in list(self._known.items()):
            if principal.key_id == key_id:
                self._known.pop(digest, None)

    def clear(self) -> None:
        self._known.clear()
