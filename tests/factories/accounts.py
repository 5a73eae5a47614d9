"""Accounts, API keys and money for tests; and emptying the tables between tests."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text

from sors.accounts import repository as accounts_repo
from sors.accounts import service as accounts
from sors.accounts.models import Member
from sors.billing import repository as billing_repo
from sors.kit.db import Base, Database
from sors.kit.ids import new_id
from sors.platforms.sim.clock import SimClock


async def reset_tables(db: Database, keep: set[str]) -> None:
    names = [t.name for t in Base.metadata.sorted_tables if t.name not in keep]
    if not names:
        return
    async with db.transaction() as s:
        await s.execute(text("TRUNCATE " + ", ".join(f'"{n}"' for n in names) + " CASCADE"))


async def sim_now(db: Database) -> datetime:
    """The simulated time stored with the data (what the test runtime's clock reads)."""
    clock = SimClock(lambda: db, ttl=0)
    await clock.refresh()
    return clock.now()


async def create_account(
    db: Database, *, credits: int = 0, email: str = "user@example.com",
    at: datetime | None = None,
) -> tuple[str, str]:
    """Returns (account_id, api_key); the credits are granted `at` (the simulated time)."""
    now = at or await sim_now(db)
    async with db.transaction() as s:
        new = await accounts.create_account(s, email=email, now=now, credits=credits)
    return new.account.id, new.api_key


async def balance_and_ledger_sum(db: Database, account_id: str) -> tuple[int, int]:
    async with db.session() as s:
        return (await billing_repo.balance(s, account_id),
                await billing_repo.ledger_sum(s, account_id))


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}



async def create_member_key(
    db: Database, account_id: str, *, role: str, email: str = "member@example.com"
) -> tuple[str, str]:
    """An active member of the account's workspace with their own key: (member_id, api_key)."""
    now = await sim_now(db)
    async with db.transaction() as s:
        member = Member(id=new_id("mem"), account_id=account_id, email=email, role=role,
                        status="active", invited_at=now, accepted_at=now)
        await accounts_repo.add_member(s, member)
        key = await accounts.create_key(s, account_id, name=role, member_id=member.id)
    return member.id, key
