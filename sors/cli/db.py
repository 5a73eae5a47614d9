"""`sors db status` / `sors db stop`: the embedded PostgreSQL of the data dir."""

from __future__ import annotations

import json

import typer

from sors.cli.common import console, fail, settings

db_app = typer.Typer(help="The embedded PostgreSQL of the data dir.", no_args_is_help=True)


@db_app.command("status")
def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Whether the embedded server runs, where, and which sors processes hold it."""
    from sors.kit import embedded

    s = settings()
    if s.database.url:
        fail("SORS_DATABASE_URL is set: this service uses an external PostgreSQL.")
    info = embedded.postmaster(s.data_dir)
    held = embedded.live_holders(s.data_dir)
    out = {
        "dataDir": str(embedded.pgdata(s.data_dir)),
        "running": info is not None,
        "pid": info.pid if info else None,
        "url": info.get_uri("postgres", "sors") if info else None,
        "holders": [{"pid": h.pid, "command": h.command} for h in held],
    }
    if as_json:
        console.print_json(json.dumps(out))
        return
    if info is None:
        console.print(f"embedded PostgreSQL in {out['dataDir']}: not running")
        return
    console.print(f"embedded PostgreSQL in {out['dataDir']}: running (pid {info.pid})")
    console.print(f"  url      {out['url']}", soft_wrap=True)
    if held:
        for h in held:
            console.print(f"  held by  {h.pid}  {h.command}")
    else:
        console.print("  held by  no running sors process (it stops within a second)")


@db_app.command("stop")
def stop(
    force: bool = typer.Option(False, "--force", help="Stop it even while sors processes use it."),
) -> None:
    """Stop the embedded server (refused while sors processes use it, unless --force)."""
    from sors.kit import embedded

    s = settings()
    if s.database.url:
        fail("SORS_DATABASE_URL is set: this service uses an external PostgreSQL.")
    held = embedded.live_holders(s.data_dir)
    if held and not force:
        pids = ", ".join(str(h.pid) for h in held)
        fail(f"sors processes still use it (pids {pids}); stop them first or pass --force.")
    if embedded.stop(s.data_dir):
        console.print("embedded PostgreSQL stopped")
    else:
        console.print("embedded PostgreSQL was not running")
