"""`sors doctor`: can each platform and the service around them (email, payments, the
public base URL, the LLM, storage, Redis: cli.service_doctor) work live here, and what to
configure if not."""

from __future__ import annotations

import asyncio

import orjson
import typer

from sors.cli.common import console, settings
from sors.config import Settings

_MARK = {"ok": "[green]ok[/green]     ", "warning": "[yellow]warning[/yellow]",
         "error": "[red]error[/red]  "}


def doctor_command(live: bool, as_json: bool, email_to: str | None = None) -> None:
    from sors.cli import service_doctor
    from sors.platforms import doctor

    s = settings()
    reports = doctor.report(s)
    service = service_doctor.checks(s)
    if live:
        asyncio.run(doctor.probe(s, reports))
        service += asyncio.run(service_doctor.probe(s, email_to))
    pay = payments_check(s)
    failing = pay["status"] == "error" or any(c.status == "error" for c in service)
    code = max(doctor.exit_status(s, reports), 1 if failing else 0)
    if as_json:
        print(orjson.dumps({"platformSource": s.platform_source, "exitStatus": code,
                            "payments": pay, "service": [c.as_dict() for c in service],
                            "platforms": [r.as_dict() for r in reports]},
                           option=orjson.OPT_INDENT_2).decode())
        raise typer.Exit(code)
    console.print(f"[bold]payments[/bold]: {pay['mode']} — {_MARK[pay['status']].strip()}",
                  soft_wrap=True)
    console.print(f"  {pay['detail']}", soft_wrap=True)
    console.print("\n[bold]service[/bold]", soft_wrap=True)
    for c in service:
        console.print(f"  {_MARK[c.status]} {c.name}: {c.detail}", soft_wrap=True)
        if c.fix:
            console.print(f"            fix: {c.fix}", soft_wrap=True)
    if s.platform_source != "live":
        console.print("SORS_PLATFORM_SOURCE=sim: the simulated world answers every crawl. "
                      "Below is what each platform would use live.", soft_wrap=True)
    for r in reports:
        console.print(f"\n[bold]{r.platform}[/bold]: source [bold]{r.source}[/bold] "
                      f"({r.reason}) — {_MARK[r.status].strip()}", soft_wrap=True)
        for c in r.checks:
            console.print(f"  {_MARK[c.status]} {c.name}: {c.detail}", soft_wrap=True)
            if c.fix:
                console.print(f"            fix: {c.fix}", soft_wrap=True)
    if not live:
        console.print("\nAdd --live for one real request per platform and to reach the SMTP "
                      "server and Redis; --live --email-to ADDRESS also sends a test email.")
    raise typer.Exit(code)


def payments_check(s: Settings) -> dict[str, str]:
    """The payment mode, and whether this install can take money honestly."""
    from sors.payments.policy import warning

    mode = s.payments.provider
    if mode == "stripe":
        live = (s.payments.stripe_secret_key or "").startswith("sk_live_")
        detail = ("Stripe, live mode" if live else "Stripe, test mode: no real money moves")
        return {"mode": "stripe", "status": "ok" if live else "warning", "detail": detail}
    problem = warning(s)
    if problem is None:
        return {"mode": "local", "status": "ok",
                "detail": "local test checkout with the simulated platforms (the demo): "
                          "credits for a click, no money"}
    status = "error" if s.payments.local_allowed else "warning"
    return {"mode": "local", "status": status, "detail": problem}
