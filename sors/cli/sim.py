from __future__ import annotations

from datetime import UTC, datetime

import typer

from sors.cli.common import HOW_TO_POINT, console, fail, require_data, settings, with_db
from sors.config import Settings
from sors.demo.worldbuild import HISTORY, BuildState
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.platforms.sim import clock as sim_clock

DEMO_PROFILES = 2000  # 60 listed posts each: ~120k posts
DEMO_HISTORY = HISTORY  # the crawls before "now" of every demo profile (worldbuild.HISTORY)
# Where a new demo's simulated clock starts. Fixed, so every fresh demo is the same world at
# the same moment and the README's tour shows what it says (a new post and an alert digest
# three days on). 10:00 UTC: past the alerts' default 09:00 send hour.
DEMO_START = datetime(2026, 9, 22, 10, 0, tzinfo=UTC)

sim_app = typer.Typer(help="The simulated platforms.", no_args_is_help=True)
clock_app = typer.Typer(help="Simulated time (stored in the database).", no_args_is_help=True)
sim_app.add_typer(clock_app, name="clock")


def _require_sim() -> None:
    s = settings()
    require_data(s)
    if s.platform_source != "sim":
        fail(
            f"refused: {s.data_dir} is not a demo's data (the simulated clock exists only with "
            f"SORS_PLATFORM_SOURCE=sim, which `sors demo` sets). {HOW_TO_POINT}"
        )


@clock_app.command("show")
def show() -> None:
    """Print the simulated time (ISO 8601)."""
    _require_sim()

    async def run(db: Database) -> datetime:
        async with db.transaction() as s:
            return (await sim_clock.ensure_state(s, seed=settings().sim.seed)).now

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


def prepare_demo(base_url: str | None = None) -> Settings:
    """The demo's settings: simulated platforms, readable logs, and a data dir that remembers
    it holds a simulated world (so every later CLI command there knows it)."""
    import os

    os.environ.setdefault("SORS_PLATFORM_SOURCE", "sim")
    os.environ.setdefault("SORS_LOG_JSON", "false")
    if base_url:
        os.environ.setdefault("SORS_BASE_URL", base_url)
    s = settings()
    s.data_dir.mkdir(parents=True, exist_ok=True)
    (s.data_dir / "platform_source").write_text(s.platform_source + "\n")
    if base_url:  # the address of the demo serving this data (see Settings)
        (s.data_dir / "base_url").write_text(s.base_url + "\n")
    return s


def seed_command(profiles: int, seed: int) -> None:
    """Build the simulated world (planning it, or growing or re-seeding it, first) with a
    progress bar. Profiles already there are kept; a running demo's build is waited for."""
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from sors.demo import worldbuild
    from sors.demo.seed import counts

    async def run(db: Database) -> tuple[worldbuild.BuildState | None, float]:
        async with db.transaction() as s:
            state = await sim_clock.ensure_state(s, seed=seed, at=DEMO_START)
            state.seed = seed  # workers build the world from the stored seed
            await worldbuild.plan(s, seed=seed, profiles=profiles, at=state.now)
        started = time.perf_counter()
        with Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console,
        ) as bar:
            task = bar.add_task("crawling simulated profiles", total=profiles)

            def progress(st: worldbuild.BuildState) -> None:
                bar.update(task, completed=st.ready, total=st.profiles)

            built = await worldbuild.build(
                db, wait=False, replan=(seed, profiles), progress=progress)
            if built is None:
                bar.console.print("another sors process (a running `sors demo`?) is building "
                                  "this world; waiting for it to finish")
                built = await worldbuild.build(db, replan=(seed, profiles), progress=progress)
        return built, time.perf_counter() - started

    built, seconds = with_db(run, create=True)
    total, posts = with_db(counts)
    ready = built.ready if built else 0
    console.print(
        f"seeded {ready} profiles ({total} in the catalog, {posts} posts) in {seconds:.1f}s")


def status_command(as_json: bool) -> None:
    """How far the demo's simulated world is built."""
    import json

    from sors.demo import worldbuild
    from sors.demo.seed import counts

    require_data(settings())

    async def run(db: Database) -> tuple[worldbuild.BuildState | None, tuple[int, int]]:
        async with db.session() as s:
            return await worldbuild.read(s), await counts(db)

    state, (profiles, posts) = with_db(run)
    if state is None:
        fail(f"no simulated world is planned in {settings().data_dir}; `sors demo` plans one")
        return
    if as_json:
        out = {
            "seed": state.seed, "profiles": state.profiles, "ready": state.ready,
            "complete": state.complete, "at": isoformat(state.at),
            "startedAt": isoformat(state.started_at),
            "finishedAt": isoformat(state.finished_at) if state.finished_at else None,
            "catalog": {"profiles": profiles, "posts": posts},
        }
        print(json.dumps(out))
        return
    console.print(world_line(state))
    console.print(f"catalog: {profiles} profiles, {posts} posts")


def world_line(state: BuildState) -> str:
    if state.finished_at is not None:  # complete
        seconds = (state.finished_at - state.started_at).total_seconds()
        return (f"simulated world: complete, {state.profiles} profiles "
                f"(seed {state.seed}, built in {seconds:.0f} s)")
    first = "the first ones arrive within seconds, " if state.ready == 0 else ""
    return (f"simulated world: {state.ready} of {state.profiles} profiles ready; {first}the "
            "rest is built while `sors demo` runs (a restart resumes it)")
