from __future__ import annotations

from datetime import UTC, datetime

import typer

from sors.cli.common import console, fail, settings, with_db
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.platforms.sim import clock as sim_clock

sim_app = typer.Typer(help="The simulated platforms.", no_args_is_help=True)
clock_app = typer.Typer(help="Simulated time (stored in the database).", no_args_is_help=True)
sim_app.add_typer(clock_app, name="clock")


def _require_sim() -> None:
    if settings().platform_source != "sim":
        fail("refused: the simulated clock exists only with SORS_PLATFORM_SOURCE=sim")


@clock_app.command("show")
def show() -> None:
    """Print the simulated time (ISO 8601)."""
    _require_sim()

    async def run(db: Database) -> datetime:
        async with db.transaction() as s:
            return (await sim_clock.ensure_state(s, seed=settings().sim_seed)).now

    print(isoformat(with_db(run)))


@clock_app.command("set")
def set_(at: str = typer.Argument(..., help="ISO 8601, e.g. 2026-11-02T09:00:00Z")) -> None:
    """Set the simulated time."""
    _require_sim()
    try:
        when = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        fail(f"not an ISO 8601 time: {at!r}")
        return
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)

    async def run(db: Database) -> datetime:
        async with db.transaction() as s:
            return await sim_clock.set_time(s, when)

    print(isoformat(with_db(run)))


@clock_app.command("advance")
def advance(by: str = typer.Argument(..., help="A duration: 36h, 8d, 90m, 2w")) -> None:
    """Move simulated time forward."""
    _require_sim()
    try:
        delta = sim_clock.parse_duration(by)
    except ValueError as exc:
        fail(str(exc))
        return

    async def run(db: Database) -> datetime:
        async with db.transaction() as s:
            return await sim_clock.advance(s, delta)

    print(isoformat(with_db(run)))


def seed_command(profiles: int, seed: int) -> None:
    """(Re)build the simulated world with a progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from sors.catalog.seed import seed_world

    async def run(db: Database):
        async with db.transaction() as s:
            state = await sim_clock.ensure_state(s, seed=seed)
            state.seed = seed  # workers build the world from the stored seed
            now = state.now
        with Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console,
        ) as bar:
            task = bar.add_task("crawling simulated profiles", total=profiles)
            return await seed_world(
                db, profiles=profiles, seed=seed, now=now,
                progress=lambda n: bar.advance(task, n),
            )

    result = with_db(run)
    console.print(
        f"seeded {result.profiles} profiles, {result.posts} posts in {result.seconds:.1f}s"
    )
