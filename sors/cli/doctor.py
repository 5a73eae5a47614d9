"""`sors doctor`: can each platform work live here, and what to configure if not."""

from __future__ import annotations

import asyncio

import orjson
import typer

from sors.cli.common import console, settings

_MARK = {"ok": "[green]ok[/green]     ", "warning": "[yellow]warning[/yellow]",
         "error": "[red]error[/red]  "}


def doctor_command(live: bool, as_json: bool) -> None:
    from sors.platforms import doctor

    s = settings()
    reports = doctor.report(s)
    if live:
        asyncio.run(doctor.probe(s, reports))
    code = doctor.exit_status(s, reports)
    if as_json:
        print(orjson.dumps({"platformSource": s.platform_source, "exitStatus": code,
                            "platforms": [r.as_dict() for r in reports]},
                           option=orjson.OPT_INDENT_2).decode())
        raise typer.Exit(code)
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
        console.print("\nAdd --live for one real request per platform.")
    raise typer.Exit(code)
