from __future__ import annotations

import json
from datetime import datetime

import typer

from sors.accounts import service as accounts
from sors.accounts.models import ApiKey
from sors.accounts.repository import AccountRow
from sors.billing import service as billing
from sors.cli.common import console, fail, with_db, with_runtime
from sors.cli.tables import Col, table
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.kit.runtime import Runtime

accounts_app = typer.Typer(help="Accounts.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys.", no_args_is_help=True)
credits_app = typer.Typer(
    help="Your balance and ledger (over HTTP); operators grant credits.",
    invoke_without_command=True,
)


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

    async def run(rt: Runtime) -> accounts.NewAccount:
        async with rt.database.transaction() as s:
            new = await accounts.create_account(s, email=email, now=rt.now(), credits=credits)
            new.account.is_operator = operator
            return new

    new = with_runtime(run)
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
def keys_list(
    account_id: str | None = typer.Argument(None, help="Only this account's keys."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List keys, one table per account (prefix only; keys themselves are never stored)."""

    async def run(db: Database) -> tuple[list[ApiKey], dict[str, str | None]]:
        async with db.session() as s:
            keys = await accounts.list_keys(s, account_id)
            emails = {a.id: a.email for a, _ in await accounts.list_accounts(s)}
            return keys, emails

    keys, emails = with_db(run)
    if as_json:
        print(json.dumps([_key_json(k) for k in keys]))
        return
    if not keys:
        console.print(f"no keys{f' for {account_id}' if account_id else ''}")
        return
    by_account: dict[str, list[ApiKey]] = {}
    for k in keys:
        by_account.setdefault(k.account_id, []).append(k)
    for i, (acc, held) in enumerate(by_account.items()):
        rows = [
            (k.id, f"{k.prefix}…", k.name or "", "no cap" if k.daily_credit_cap is None
             else f"{k.daily_credit_cap}/day", _day(k.created_at),
             "revoked" if k.revoked_at else "active")
            for k in held
        ]
        console.print(("\n" if i else "") + f"[bold]{acc}[/bold]  {emails.get(acc) or ''}",
                      highlight=False)
        console.print(table(None, [
            Col("key"), Col("prefix"), Col("name", flex=4), Col("daily cap", right=True),
            Col("created", optional=True), Col("state"),
        ], rows, console.width))


def _day(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d") if at else "-"


def _key_json(k: ApiKey) -> dict[str, str | int | None]:
    return {"keyId": k.id, "accountId": k.account_id, "prefix": k.prefix, "name": k.name,
            "dailyCreditCap": k.daily_credit_cap, "createdAt": isoformat(k.created_at),
            "revokedAt": isoformat(k.revoked_at) if k.revoked_at else None}


@accounts_app.command("list")
def accounts_list(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Every account with its balance and active keys (operator task)."""

    async def run(db: Database) -> list[AccountRow]:
        async with db.session() as s:
            return await accounts.list_accounts(s)

    rows = with_db(run)
    if as_json:
        print(json.dumps([
            {"accountId": a.id, "email": a.email, "balance": a.balance, "activeKeys": n,
             "operator": a.is_operator, "createdAt": isoformat(a.created_at)}
            for a, n in rows
        ]))
        return
    if not rows:
        console.print("no accounts yet; create one with `sors accounts create --email E`")
        return
    console.print(table(None, [
        Col("account"), Col("email", flex=10), Col("balance", right=True),
        Col("keys", right=True), Col("operator"),
    ], [(a.id, a.email or "", f"{a.balance:,}", n, "yes" if a.is_operator else "")
        for a, n in rows], console.width))


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="key_… id")) -> None:
    """Revoke a key: it is refused (401) from the next request on."""

    async def run(rt: Runtime) -> bool:
        async with rt.database.transaction() as s:
            return await accounts.revoke_key(s, key_id, rt.now())

    if not with_runtime(run):
        fail(f"no active key {key_id}")
    console.print(f"revoked {key_id}")


@credits_app.command("grant")
def credits_grant(
    account_id: str = typer.Argument(...),
    amount: int = typer.Argument(..., min=1),
    reason: str = typer.Option(..., "--reason", help="Why; recorded in the ledger."),
) -> None:
    """Grant credits to an account (a ledger entry of kind grant)."""

    async def run(rt: Runtime) -> int:
        async with rt.database.transaction() as s:
            if await accounts.get_account(s, account_id) is None:
                raise LookupError(f"no account {account_id}")
            granted = await billing.grant(s, account_id, amount, reason=reason, now=rt.now())
            return granted.balance

    try:
        console.print(f"balance {with_runtime(run)}")
    except LookupError as exc:
        fail(str(exc))
