"""Real processes on loopback for the multi-process tests (tests/app) and the other tests
that start `sors` itself (tests/kit, tests/jobs, tests/webhooks, …): a throwaway PostgreSQL
from the Debian packages, a throwaway Redis, `sors api` / `sors worker` processes, and a
free loopback port.

Every process started here is stopped by its `stop()`; the fixtures register those as
finalizers, so nothing outlives the test module (short of the test runner itself being
killed with SIGKILL).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx


class Unavailable(Exception):
    """A binary or system user the tests need is missing (the caller skips)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


# ---- PostgreSQL ---------------------------------------------------------------------------

def postgres_bin_dir() -> Path:
    """The newest Debian PostgreSQL server install (postgresql-NN)."""
    found = [
        Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")
        if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists()
    ]
    if not found:
        raise Unavailable(
            "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin "
            "(install the Debian 'postgresql' package; scripts/bootstrap.sh does)"
        )
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


class PostgresServer:
    """initdb + pg_ctl in a temporary directory, listening on 127.0.0.1 only, trust auth.

    PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system
    user (created by the Debian package) through `runuser`, in a directory it owns."""

    def __init__(self) -> None:
        self.bin = postgres_bin_dir()
        self.prefix: list[str] = []
        owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as exc:
                raise Unavailable("running as root and there is no 'postgres' system user") from exc
            runuser = shutil.which("runuser")
            if runuser is None:
                raise Unavailable("running as root and 'runuser' is missing")
            self.prefix = [runuser, "-u", "postgres", "--"]
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="sors-e2e-pg-"))
        if owner is not None:
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        self.dir.chmod(0o700)
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.started = False

    def _run(self, args: Sequence[str], timeout: float = 60) -> None:
        proc = subprocess.run(
            [*self.prefix, *args], capture_output=True, text=True, timeout=timeout, cwd=self.dir
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}\n"
                f"{tail(self.log)}"
            )

    def start(self) -> None:
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                   "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"])
        options = " ".join([
            f"-p {self.port}", "-h 127.0.0.1", f"-k {self.dir}",
            "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
            "-c max_connections=300",
        ])
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                   "-o", options, "-w", "-t", "60", "start"], timeout=90)
        self.started = True

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def stop(self) -> None:
        if self.started:
            with contextlib.suppress(Exception):
                self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                           "-w", "-t", "30", "stop"], timeout=60)
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- Redis --------------------------------------------------------------------------------

class RedisServer:
    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise Unavailable("redis-server not found (install the Debian 'redis-server' package)")
        self.binary = binary
        self.port = free_port()
        self.dir = workdir
        self.log = workdir / "redis.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self.dir)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited:\n{tail(self.log)}")
            with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", self.port), timeout=1
            ) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(64).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer:\n{tail(self.log)}")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)
            self.proc = None


# ---- sors processes -----------------------------------------------------------------------

def sors_command() -> list[str]:
    """The installed `sors` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("sors")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from sors.cli.main import app; app()"]


def stop_process(proc: subprocess.Popen, *, grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds; only this process (and the session it
    leads, which we created with start_new_session)."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _default_hangup() -> None:
    # A test runner started under `nohup` ignores SIGHUP, and an ignored signal stays ignored
    # across exec; a sors process here must see SIGHUP as one started from a terminal does.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class SorsProcess:
    def __init__(self, name: str, args: Sequence[str], env: dict[str, str], logdir: Path) -> None:
        self.name = name
        self.args = list(args)
        self.log = logdir / f"{name}.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [*sors_command(), *self.args], env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_default_hangup,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        stop_process(self.proc)

    def describe(self) -> str:
        state = "running" if self.alive() else f"exited {self.proc.returncode}"
        return f"--- {self.name} (pid {self.pid}, {state}) ---\n{tail(self.log)}"


def run_cli(args: Sequence[str], env: dict[str, str], *, timeout: float = 120) -> str:
    proc = subprocess.run(
        [*sors_command(), *args], env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"sors {' '.join(args)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def wait_healthy(base_url: str, proc: SorsProcess, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive():
            raise RuntimeError(f"{proc.name} exited before it was healthy\n{proc.describe()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} not healthy after {timeout}s\n{proc.describe()}")
