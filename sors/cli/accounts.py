from __future__ import annotations

import json

import typer

from sors.accounts import service as accounts
from sors.billing import service as billing
from sors.cli.common import console, fail, with_db
from sors.kit.clock import isoformat
from sors.kit.db import Database

accounts_app = typer.Typer(help="Accounts.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys.", no_args_is_help=True)
credits_app = typer.Typer(help="Credits (operator tasks).", no_args_is_help=True)


@accounts_app.command("create")
def create(
    email: str = typer.Option(..., help="The account's email address."),
    credits: int = typer.Option(0, min=0, help="Credits to grant at creation."),
    operator: bool = typer.Option(
        False, "--operator", help="The self-hoster's account: shown the sources' status."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Create an account and print its id and a new API key (shown once)."""

    async def run(db: Database) -> accounts.NewAccount:
        async with db.transaction() as s:
            new = await accounts.create_account(s, email=email, credits=credits)
            new.account.is_operator = operator
            return new

    new = with_db(run)
    if as_json:
        print(json.dumps({"accountId": new.account.id, "apiKey": new.api_key,
                          "email": email, "balance": new.balance}))
    else:
        console.print(f"account  {new.account.id}\napi key  {new.api_key}\nbalance  {new.balance}")
        console.print("[dim]The key is shown only now; store it safely.[/dim]")


@keys_app.command("create")
def keys_create(
    account_id: str = typer.Argument(..., help="acc_… id"),
    name: str | None = typer.Option(None, help="A label for the key."),
    daily_cap: int | None = typer.Option(
        None, "--daily-cap", min=0, help="Credits this key may spend per UTC day (default: no cap)."
    ),
) -> None:
    """Create another API key for an account (printed once)."""

    async def run(db: Database) -> str:
        async with db.transaction() as s:
            return await accounts.create_key(s, account_id, name=name, daily_credit_cap=daily_cap)

    try:
        print(with_db(run))
    except LookupError as exc:
        fail(str(exc))


@keys_app.command("list")
def keys_list(account_id: str | None = typer.Argument(None)) -> None:
    """List keys (prefix only; keys themselves are never stored)."""

    async def run(db: Database) -> list:
        async with db.session() as s:
            return await accounts.list_keys(s, account_id)

    for k in with_db(run):
        state = f"revoked {isoformat(k.revoked_at)}" if k.revoked_at else "active"
        cap = "no cap" if k.daily_credit_cap is None else f"cap {k.daily_credit_cap}/day"
        console.print(f"{k.id}  {k.account_id}  {k.prefix}…  {k.name or ''}  {cap}  {state}")


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="key_… id")) -> None:
    """Revoke a key: it is refused (401) from the next request on."""

    async def run(db: Database) -> bool:
        async with db.transaction() as s:
            return await accounts.revoke_key(s, key_id)

    if not with_db(run):
        fail(f"no active key {key_id}")
    console.print(f"revoked {key_id}")


@credits_app.command("grant")
def credits_grant(
    account_id: str = typer.Argument(...),
    amount: int = typer.Argument(..., min=1),
    reason: str = typer.Option(..., "--reason", help="Why; recorded in the ledger."),
) -> None:
    """Grant credits to an account (a ledger entry of kind grant)."""

    async def run(db: Database) -> int:
        async with db.transaction() as s:
            if await accounts.get_account(s, account_id) is None:
                raise LookupError(f"no account {account_id}")
            return (await billing.grant(s, account_id, amount, reason=reason)).balance

    try:
        console.print(f"balance {with_db(run)}")
    except LookupError as exc:
        fail(str(exc))
