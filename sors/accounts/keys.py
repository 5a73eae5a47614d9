"""An account's own API keys over the API: list, create (optionally with a daily spend
cap), change the cap, revoke. The secret is returned once, at creation.

Who may manage keys is the authorisation rule's (`accounts.permissions`, applied by the
routes): not a viewer, and not a key with a cap — the cap bounds what a holder of that key (an
agent, say) can spend, and minting an uncapped key would undo it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as repo
from sors.accounts.errors import LastKey, RoleForbidden
from sors.accounts.models import ApiKey
from sors.accounts.service import issue_key
from sors.kit.errors import NotFound
from sors.kit.principal import Principal


@dataclass(frozen=True)
class KeyView:
    key: ApiKey
    spent_today: int


@dataclass(frozen=True)
class KeyChange:
    """What PATCH /keys/{keyId} sent: a field left out (False) keeps its value; a cap of
    None removes the cap."""

    rename: bool = False
    name: str | None = None
    recap: bool = False
    daily_credit_cap: int | None = None


def day_of(now: datetime) -> date:
    """The UTC day a key's spend counts in."""
    return now.astimezone(UTC).date()


async def list_keys(session: AsyncSession, account_id: str, now: datetime,
                    caller: Principal | None = None) -> list[KeyView]:
    """The account's keys with what each spent on `now`'s UTC day; a member (or viewer) sees
    only their own."""
    return [KeyView(k, spent) for k, spent in
            await repo.active_keys_with_spend(session, account_id, day_of(now))
            if caller is None or caller.member_id is None or k.member_id == caller.member_id]


async def create(
    session: AsyncSession, caller: Principal, *, name: str | None, daily_credit_cap: int | None
) -> tuple[KeyView, str]:
    if caller.member_id is not None:
        # The member row is locked, as removal locks it: a key made in a race with the
        # member's removal either sees the removal and is refused, or is revoked by it.
        member = await repo.get_member(session, caller.member_id, lock=True)
        if member is None or member.status != "active":
            raise RoleForbidden("This key's membership has ended.")
    key, secret = await issue_key(session, caller.account_id, name=name,
                                  daily_credit_cap=daily_credit_cap, member_id=caller.member_id)
    return KeyView(key, 0), secret


async def update(
    session: AsyncSession, caller: Principal, key_id: str, change: KeyChange, now: datetime
) -> KeyView:
    key = await _own(session, caller, key_id)
    if change.rename:
        key.name = change.name
    if change.recap:
        key.daily_credit_cap = change.daily_credit_cap
    await session.flush()
    return KeyView(key, await repo.spent_on(session, key.id, day_of(now)))


async def revoke(session: AsyncSession, caller: Principal, key_id: str, now: datetime) -> None:
    await repo.lock_account(session, caller.account_id)
    await _own(session, caller, key_id)
    if len(await list_keys(session, caller.account_id, now, caller)) <= 1:
        raise LastKey("An account keeps at least one key; create another before revoking this one.")
    await repo.revoke_key(session, key_id, now)


async def _own(session: AsyncSession, caller: Principal, key_id: str) -> ApiKey:
    key = await repo.active_key(session, caller.account_id, key_id)
    if key is None or (caller.member_id is not None and key.member_id != caller.member_id):
        raise NotFound(f"No active key {key_id!r} of this key's holder.")
    return key
