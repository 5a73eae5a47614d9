"""An account's own API keys over the API: list, create (optionally with a daily spend
cap), change the cap, revoke. The secret is returned once, at creation.

A key with a cap cannot manage keys: the cap bounds what a holder of that key (an agent,
say) can spend, and minting an uncapped key would undo it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as repo
from sors.accounts.models import ApiKey
from sors.accounts.service import issue_key
from sors.kit import clock
from sors.kit.errors import ApiError, NotFound
from sors.kit.principal import Principal


class LastKey(ApiError):
    status = 409
    code = "last_key"
    title = "Last key"


class CappedKeyCannotManageKeys(ApiError):
    status = 403
    code = "capped_key_cannot_manage_keys"
    title = "Forbidden for a capped key"


@dataclass(frozen=True)
class KeyView:
    key: ApiKey
    spent_today: int


def today() -> date:
    return clock.now().astimezone(UTC).date()


async def list_keys(session: AsyncSession, account_id: str,
                    caller: Principal | None = None) -> list[KeyView]:
    """The account's keys; a member (or viewer) sees only their own."""
    return [KeyView(k, spent) for k, spent in
            await repo.active_keys_with_spend(session, account_id, today())
            if caller is None or caller.member_id is None or k.member_id == caller.member_id]


async def ensure_uncapped(session: AsyncSession, caller: Principal) -> None:
    key = await repo.active_key(session, caller.account_id, caller.key_id)
    if key is not None and key.daily_credit_cap is not None:
        raise CappedKeyCannotManageKeys(
            "This key has a daily spend cap, so it cannot create, change or revoke keys; "
            "use an uncapped key of the account."
        )


async def create(
    session: AsyncSession, caller: Principal, *, name: str | None, daily_credit_cap: int | None
) -> tuple[KeyView, str]:
    await ensure_uncapped(session, caller)
    key, secret = await issue_key(session, caller.account_id, name=name,
                                  daily_credit_cap=daily_credit_cap, member_id=caller.member_id)
    return KeyView(key, 0), secret


async def update(
    session: AsyncSession, caller: Principal, key_id: str, *, changes: dict[str, Any]
) -> KeyView:
    """`changes` holds the fields sent: `name`, `dailyCreditCap` (None removes the cap)."""
    await ensure_uncapped(session, caller)
    key = await _own(session, caller, key_id)
    if "name" in changes:
        key.name = changes["name"]
    if "dailyCreditCap" in changes:
        key.daily_credit_cap = changes["dailyCreditCap"]
    await session.flush()
    return KeyView(key, await repo.spent_on(session, key.id, today()))


async def revoke(session: AsyncSession, caller: Principal, key_id: str) -> None:
    await ensure_uncapped(session, caller)
    await repo.lock_account(session, caller.account_id)
    await _own(session, caller, key_id)
    if len(await list_keys(session, caller.account_id, caller)) <= 1:
        raise LastKey("An account keeps at least one key; create another before revoking this one.")
    await repo.revoke_key(session, key_id, clock.now())


async def _own(session: AsyncSession, caller: Principal, key_id: str) -> ApiKey:
    key = await repo.active_key(session, caller.account_id, key_id)
    if key is None or (caller.member_id is not None and key.member_id != caller.member_id):
        raise NotFound(f"No active key {key_id!r} of this key's holder.")
    return key
