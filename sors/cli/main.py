"""The `sors` command."""

from __future__ import annotations

from pathlib import Path

import typer

from sors.cli.accounts import accounts_app, credits_app, keys_app
from sors.cli.catalog import catalog_app
from sors.cli.common import console, ensure_migrated, runtime, settings, use_data_dir
from sors.cli.db import db_app
from sors.cli.feedback import feedback_app
from sors.cli.outbox import outbox_app
from sors.cli.people import register as register_people_commands
from sors.cli.sim import DEMO_PROFILES, seed_command, sim_app

app = typer.Typer(
    help="sors — Social Outlier Research Service.", no_args_is_help=True, add_completion=False
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"sors {version('sors')}")
        raise typer.Exit()


@app.callback()
def main(
    data_dir: Path | None = typer.Option(
        None, "--data-dir", envvar="SORS_DATA_DIR", show_envvar=True,
        help="The data dir (default: the nearest .sors at or above the working directory).",
    ),
    _: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """sors — Social Outlier Research Service."""
    from sors.kit import memory
    from sors.kit.logging import configure_logging

    memory.limit_arenas()  # before any thread: see sors.kit.memory
    use_data_dir(data_dir)
    # A command's output is on stdout; its logs go to stderr, warnings and errors only unless
    # SORS_LOG_LEVEL says otherwise. A command that starts a service (serve, api, demo,
    # worker, scheduler) configures its own logging at its start.
    s = settings()
    configure_logging(s if "logging" in s.model_fields_set else s.with_values(log_level="WARNING"))


app.add_typer(accounts_app, name="accounts")
app.add_typer(keys_app, name="keys")
app.add_typer(credits_app, name="credits")
app.add_typer(feedback_app, name="feedback")
app.add_typer(sim_app, name="sim")
app.add_typer(outbox_app, name="outbox")
app.add_typer(catalog_app, name="catalog")
app.add_typer(db_app, name="db")
register_people_commands(app)

demo_app = typer.Typer(
    help="The demo: embedded PostgreSQL, simulated platforms, a funded account.",
    invoke_without_command=True,
)
app.add_typer(demo_app, name="demo")


@demo_app.callback()
def demo(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    profiles: int = typer.Option(
        None, min=1, show_default=False,
        help=f"Simulated profiles of a new demo's world (default {DEMO_PROFILES}); an existing "
        "world keeps its size (grow it with `sors demo seed`).",
    ),
) -> None:
    """Start the demo (data in ./.sors) and print the base URL and an API key. It serves as
    soon as the first profiles of its world are in, and builds the rest meanwhile."""
    if ctx.invoked_subcommand is None:
        from sors.cli.server import demo as run_demo

        run_demo(host, port, profiles)


@demo_app.command("seed")
def demo_seed(
    profiles: int = typer.Option(
        DEMO_PROFILES, min=1, help="How many simulated profiles to crawl."),
    seed: int = typer.Option(0, help="World seed: the same seed gives the same world."),
) -> None:
    """Build the simulated world now, with a progress bar (grows or re-seeds an existing one;
    profiles already there are kept)."""
    from sors.cli.sim import prepare_demo

    prepare_demo()
    seed_command(profiles, seed)


@demo_app.command("status")
def demo_status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """How far the simulated world is built (the demo builds it in the background)."""
    from sors.cli.sim import status_command

    status_command(as_json)


@demo_app.command("reset")
def demo_reset(
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask: delete the demo's data."),
) -> None:
    """Delete the demo's data (database, simulated world, key, media, emails) so the next
    `sors demo` starts afresh. Refused while the demo (or any sors process) uses it."""
    from sors.cli.server import reset

    reset(yes)


@app.command()
def migrate() -> None:
    """Apply database migrations."""
    ensure_migrated(settings())
    console.print("database is at the latest migration")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(8000),
) -> None:
    """API + in-process worker + scheduler on the configured database and platform source."""
    from sors.cli.server import run_api, warn_about_payments

    warn_about_payments(settings())
    run_api(host, port, roles=("worker", "scheduler"))


@app.command()
def api(
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(8000),
    workers: int = typer.Option(1, min=1, help="uvicorn worker processes."),
) -> None:
    """The HTTP API alone (run workers and a scheduler separately)."""
    from sors.cli.server import run_api, warn_about_payments

    warn_about_payments(settings())
    run_api(host, port, workers=workers)


@app.command()
def mcp() -> None:
    """MCP server over stdio for local agents, in front of the sors API at SORS_API_URL
    (default the local demo) with the key in SORS_API_KEY."""
    import asyncio
    import os

    import httpx

    from sors.agents.stdio import DEFAULT_API_URL, serve_stdio
    from sors.cli.common import fail

    key = os.environ.get("SORS_API_KEY", "").strip()
    if not key:
        fail("set SORS_API_KEY to the API key the tools should use")
    url = os.environ.get("SORS_API_URL") or DEFAULT_API_URL
    try:
        asyncio.run(serve_stdio(url, key))
    except httpx.HTTPError as exc:
        fail(f"cannot read the tool list from the sors API at {url} ({exc}); "
             "set SORS_API_URL, or start one with `sors demo`")


_METRICS_PORT = typer.Option(
    None, "--metrics-port", min=0, max=65535, help="Serve Prometheus /metrics on this port."
)
_METRICS_HOST = typer.Option("127.0.0.1", "--metrics-host", help="Interface for /metrics.")


@app.command()
def worker(
    concurrency: int = typer.Option(None, min=1, help="Jobs run at once."),
    metrics_port: int = _METRICS_PORT,
    metrics_host: str = _METRICS_HOST,
) -> None:
    """Run a job worker (any number, on any machine sharing the database). On SIGTERM it
    stops claiming, lets running jobs finish (SORS_WORKER_GRACE_SECONDS) and hands back the
    rest."""
    import asyncio

    from sors.jobs.runtime import run_standalone

    s = settings()
    ensure_migrated(s)
    metrics = None if metrics_port is None else (metrics_host, metrics_port)
    asyncio.run(run_standalone(runtime(s), "worker", concurrency=concurrency, metrics=metrics))


scheduler_app = typer.Typer(
    help="The scheduler: enqueues what is due.", invoke_without_command=True
)
app.add_typer(scheduler_app, name="scheduler")


@scheduler_app.callback()
def scheduler(
    ctx: typer.Context, metrics_port: int = _METRICS_PORT, metrics_host: str = _METRICS_HOST
) -> None:
    """Run the scheduler loop (several may run; an advisory lock keeps ticks single)."""
    if ctx.invoked_subcommand is None:
        import asyncio

        from sors.jobs.runtime import run_standalone

        s = settings()
        ensure_migrated(s)
        metrics = None if metrics_port is None else (metrics_host, metrics_port)
        asyncio.run(run_standalone(runtime(s), "scheduler", metrics=metrics))


@scheduler_app.command("run-once")
def scheduler_run_once(
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Run everything due now (refreshes, detection, digests, expiries), wait for the jobs
    that made, and print what happened."""
    from sors.cli.scheduler import run_once

    run_once(as_json=as_json)


@app.command("import")
def import_files(
    paths: list[Path] = typer.Argument(
        ..., exists=True, help="Files (or directories of .json/.jsonl files) to import."
    ),
    format: str = typer.Option(
        None, "--format",
        help="apify-tiktok, apify-instagram, apify-youtube, ytdlp, youtube-api-videos or "
        "youtube-api-channels (default: detected from each file).",
    ),
    observed_at: str = typer.Option(
        None, "--observed-at",
        help="When the data was captured (ISO 8601), for files that do not say: required then.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Import exports you already hold — Apify datasets, yt-dlp .info.json files, YouTube Data
    API answers — through the same ingest as a crawl. One transaction per file: a file that
    cannot be read changes nothing. Importing a file twice changes nothing."""
    from sors.cli.imports import import_command

    import_command(paths, format, observed_at, as_json)


@app.command()
def doctor(
    live: bool = typer.Option(False, "--live", help="Make one cheap real request per platform."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    email_to: str | None = typer.Option(
        None, "--email-to", help="With --live: send a test email to this address."),
) -> None:
    """For each platform: the source in use and why, its prerequisites, and the fix for
    each failure; then the service: email, payments, the public base URL, the LLM, storage,
    Redis. Exit status 1 when something the live service needs cannot work."""
    from sors.cli.doctor import doctor_command

    if email_to and not live:
        raise typer.BadParameter("--email-to sends a real email: add --live")
    doctor_command(live, as_json, email_to)


if __name__ == "__main__":
    app()
