"""Accounts and their API keys. A key is returned once, at creation; only its hash stays."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as repo
from sors.accounts.models import Account, ApiKey
from sors.billing import service as billing
from sors.kit.ids import new_id
from sors.kit.principal import Principal
from sors.kit.security import display_prefix, generate_api_key, hash_api_key, looks_like_api_key


@dataclass(frozen=True)
class NewAccount:
    account: Account
    api_key: str
    balance: int


async def create_account(
    session: AsyncSession, *, email: str | None, now: datetime, credits: int = 0,
    reason: str = "initial grant",
) -> NewAccount:
    """A new account with its first key and, with `credits`, a grant at `now`."""
    account = Account(id=new_id("acc"), email=email, balance=0)
    await repo.add(session, account)
    balance = 0
    if credits > 0:
        moved = await billing.grant(session, account.id, credits, reason=reason, now=now)
        balance = moved.balance
    key = await create_key(session, account.id, name="default")
    return NewAccount(account, key, balance)


async def create_key(
    session: AsyncSession, account_id: str, *, name: str | None = None,
    daily_credit_cap: int | None = None, member_id: str | None = None,
) -> str:
    return (await issue_key(session, account_id, name=name, daily_credit_cap=daily_credit_cap,
                            member_id=member_id))[1]


async def issue_key(
    session: AsyncSession, account_id: str, *, name: str | None = None,
    daily_credit_cap: int | None = None, member_id: str | None = None,
) -> tuple[ApiKey, str]:
    """A new key row and its secret (the only time the secret exists outside the caller)."""
    if await repo.get_account(session, account_id) is None:
        raise LookupError(f"no account {account_id}")
    secret = generate_api_key()
    row = ApiKey(
        id=new_id("key"), account_id=account_id, key_hash=hash_api_key(secret),
        prefix=display_prefix(secret), name=name, daily_credit_cap=daily_credit_cap,
        member_id=member_id,
    )
    await repo.add(session, row)
    await session.refresh(row, ["created_at"])
    return row, secret


async def authenticate(session: AsyncSession, key: str) -> Principal | None:
    if not looks_like_api_key(key):
        return None
    return _principal(await repo.active_key_by_hash(session, hash_api_key(key)))


async def principal_for_key_id(session: AsyncSession, key_id: str) -> Principal | None:
    """The key's owner while the key is still active (a console session holds only the id)."""
    return _principal(await repo.active_key_by_id(session, key_id))


def _principal(found: repo.KeyHolder | None) -> Principal | None:
    if found is None:
        return None
    key_id, account_id, role, member_id, capped = found
    return Principal(account_id=account_id, key_id=key_id, role=role, member_id=member_id,
                     capped=capped)


async def list_keys(session: AsyncSession, account_id: str | None = None) -> list[ApiKey]:
    return await repo.list_keys(session, account_id)


async def list_accounts(session: AsyncSession) -> list[repo.AccountRow]:
    return await repo.list_accounts(session)


async def revoke_key(session: AsyncSession, key_id: str, now: datetime) -> bool:
    return await repo.revoke_key(session, key_id, now)


async def get_account(session: AsyncSession, account_id: str) -> Account | None:
    return await repo.get_account(session, account_id)
