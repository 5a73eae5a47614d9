"""Starting the service: `sors serve`, `sors api`, `sors demo`."""

from __future__ import annotations

import os

import uvicorn

from sors.cli.common import console, ensure_migrated, settings, with_db
from sors.config import Settings
from sors.kit.db import Database

DEMO_EMAIL = "demo@sors.local"
DEMO_CREDITS = 10_000
DEMO_PROFILES = 2000  # 60 listed posts each: ~120k posts


def run_api(host: str, port: int, *, workers: int = 1, roles: tuple[str, ...] = ()) -> None:
    """Run the HTTP API (plus, in one process, the given background roles)."""
    s = settings()
    ensure_migrated(s)
    if roles:
        os.environ["SORS_INPROCESS_ROLES"] = ",".join(roles)
    uvicorn.run(
        "sors.cli.server:app_factory", factory=True, host=host, port=port, workers=workers,
        loop="uvloop", http="httptools", log_level="warning", proxy_headers=True,
    )


def app_factory():
    from sors.app import create_app

    return create_app()


async def ensure_demo_account(db: Database, s: Settings) -> tuple[str, str, int]:
    from sors.accounts import repository as accounts_repo
    from sors.accounts import service as accounts
    from sors.billing import service as billing

    async with db.transaction() as session:
        account = await accounts_repo.find_account_by_email(session, DEMO_EMAIL)
        if account is None:
            new = await accounts.create_account(
                session, email=DEMO_EMAIL, credits=DEMO_CREDITS, reason="demo account"
            )
            return new.account.id, new.api_key, new.balance
        key = await accounts.create_key(session, account.id, name="demo")
        return account.id, key, await billing.balance(session, account.id)


def print_banner(base_url: str, account_id: str, key: str, balance: int) -> None:
    console.print("\n[bold]sors demo[/bold] — simulated TikTok, Instagram and YouTube\n")
    console.print(f"  base URL   {base_url}/api/v1")
    console.print(f"  API docs   {base_url}/docs")
    console.print(f"  account    {account_id}  ({balance} credits)")
    console.print(f"  API key    [bold green]{key}[/bold green]\n", soft_wrap=True)
    console.print(f"  try:  curl -s {base_url}/api/v1/pricing", soft_wrap=True)
    console.print(
        f"        curl -s -H 'Authorization: Bearer {key}' {base_url}/api/v1/credits\n",
        soft_wrap=True,
    )


def demo(host: str, port: int) -> None:
    os.environ.setdefault("SORS_PLATFORM_SOURCE", "sim")
    os.environ.setdefault("SORS_BASE_URL", f"http://{host}:{port}")
    from sors import config

    config.set_settings(Settings())
    s = settings()
    s.data_dir.mkdir(parents=True, exist_ok=True)
    (s.data_dir / "platform_source").write_text(s.platform_source + "\n")
    from sors.catalog.seed import counts
    from sors.cli.sim import seed_command

    profiles, _ = with_db(counts)
    if profiles == 0:
        console.print("First start: building the simulated world (once)…")
        seed_command(DEMO_PROFILES, s.sim_seed)
    account_id, key, balance = with_db(lambda db: ensure_demo_account(db, s))
    print_banner(s.base_url.rstrip("/"), account_id, key, balance)
    run_api(host, port, roles=("worker", "scheduler"))
