"""`sors outbox`: read the emails the file backend wrote (DATA_DIR/outbox/*.eml)."""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import typer

from sors.cli.common import console, fail, settings

outbox_app = typer.Typer(
    help="Emails written to DATA_DIR/outbox (SORS_EMAIL_BACKEND=file, the demo's default).",
    invoke_without_command=True,
)


def _messages() -> list[Path]:
    box = settings().outbox_dir
    return sorted(box.glob("*.eml")) if box.is_dir() else []  # names start with a UTC stamp


def _read(path: Path) -> EmailMessage:
    with path.open("rb") as fh:
        return BytesParser(EmailMessage, policy=email.policy.default).parse(fh)


@outbox_app.callback()
def list_(ctx: typer.Context) -> None:
    """List the emails, oldest first."""
    if ctx.invoked_subcommand is not None:
        return
    paths = _messages()
    if not paths:
        console.print(f"no emails in {settings().outbox_dir}", soft_wrap=True, highlight=False)
        return
    for path in paths:
        msg = _read(path)
        console.print(
            f"{path.name}  to {msg['To']}  {msg['Subject']}", soft_wrap=True, highlight=False
        )


@outbox_app.command("show")
def show(
    name: str = typer.Argument(None, help="A file name from `sors outbox` (default: the newest)."),
) -> None:
    """Print one email: its headers and its plain-text part."""
    paths = _messages()
    if name:
        paths = [p for p in paths if p.name == name or str(p) == name]
    if not paths:
        fail(f"no such email in {settings().outbox_dir}" if name else
             f"no emails in {settings().outbox_dir}")
        return
    msg = _read(paths[-1])
    for header in ("Date", "From", "To", "Subject", "List-Unsubscribe"):
        if msg[header]:
            print(f"{header}: {msg[header]}")
    body = msg.get_body(preferencelist=("plain",))
    print()
    print(body.get_content() if body is not None else "(no plain-text part)")
