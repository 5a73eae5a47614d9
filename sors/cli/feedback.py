from __future__ import annotations

import typer

from sors.cli.common import console, fail, with_db, with_runtime
from sors.feedback import service
from sors.feedback.models import Feedback
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.kit.runtime import Runtime

feedback_app = typer.Typer(
    help="Feedback sent through POST /api/v1/feedback.", no_args_is_help=True
)


@feedback_app.command("list")
def list_(status: str | None = typer.Option(None, help="received | resolved")) -> None:
    """Feedback, oldest first (says so when there is none)."""
    async def run(db: Database) -> list[Feedback]:
        async with db.session() as s:
            return await service.list_feedback(s, status)

    found = with_db(run)
    if not found:
        console.print(f"no feedback{f' with status {status}' if status else ''} yet")
    for f in found:
        wants = " (wants update)" if f.wants_update else ""
        console.print(f"{f.id}  {f.status}  {isoformat(f.created_at)}  {f.skill or '-'}{wants}")
        console.print(f"    {f.message}")


@feedback_app.command("resolve")
def resolve(
    feedback_id: str = typer.Argument(...),
    note: str | None = typer.Option(None, help="What was done; included in the email."),
) -> None:
    """Mark feedback resolved; emails the account when it asked for an update."""

    async def run(rt: Runtime) -> tuple[Feedback, bool]:
        async with rt.database.transaction() as s:
            return await service.resolve(s, rt.settings, feedback_id, now=rt.now(), note=note)

    try:
        f, emailed = with_runtime(run)
    except LookupError as exc:
        fail(str(exc))
        return
    console.print(f"resolved {f.id}" + (" — account emailed" if emailed else ""))
