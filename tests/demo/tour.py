"""The README's tour as a program: its commands, taken from README.md itself, run in bash
against a real `sors demo` (its own data dir, embedded PostgreSQL, a loopback port)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOUR_HEADING = "## A five-minute tour"
DEMO_PORT_IN_README = "127.0.0.1:8000"
MARK = "=== tour block"


def tour_blocks(readme: Path = REPO / "README.md") -> list[str]:
    """The ```bash blocks of the tour section, in order."""
    text = readme.read_text()
    start = text.index(TOUR_HEADING)
    end = text.find("\n## ", start + len(TOUR_HEADING))
    section = text[start : end if end >= 0 else len(text)]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def tour_texts(readme: Path = REPO / "README.md") -> list[str]:
    """The ```text blocks of the tour section: output the README promises."""
    text = readme.read_text()
    start = text.index(TOUR_HEADING)
    end = text.find("\n## ", start + len(TOUR_HEADING))
    section = text[start : end if end >= 0 else len(text)]
    return re.findall(r"```text\n(.*?)```", section, flags=re.S)


def tour_script(blocks: list[str], port: int) -> str:
    """One bash program; only the port differs from the README (tests never use 8000)."""
    parts = ["set -euo pipefail"]
    for i, block in enumerate(blocks):
        parts.append(f"echo; echo '{MARK} {i}'")  # outputs may end without a newline
        parts.append(block.replace(DEMO_PORT_IN_README, f"127.0.0.1:{port}"))
    return "\n".join(parts) + "\n"


def split_output(out: str) -> list[str]:
    chunks = re.split(rf"^{MARK} \d+\n", out, flags=re.M)
    return chunks[1:]


def clean_env(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env.pop("XDG_RUNTIME_DIR", None)  # as on a fresh machine: no warning may follow from it
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "200"})
    return env


@dataclass
class Demo:
    workdir: Path
    port: int
    proc: subprocess.Popen[str] | None = None
    banner: list[str] = field(default_factory=list)
    log: Path | None = None
    args: tuple[str, ...] = ()  # more `sors demo` options

    def start(self, timeout: float = 300) -> None:
        self.log = self.workdir / "demo.log"
        fh = self.log.open("w")
        self.proc = subprocess.Popen(
            [".venv/bin/sors", "demo", "--port", str(self.port), *self.args], cwd=self.workdir,
            env=clean_env(self.workdir), stdout=fh, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_text()
            if "API key" in text and self._healthy():
                self.banner = text.splitlines()
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"sors demo exited:\n{text}")
            time.sleep(0.5)
        raise TimeoutError(f"sors demo did not start:\n{self.log.read_text()}")

    def _healthy(self) -> bool:
        import httpx

        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def output(self) -> str:
        return self.log.read_text() if self.log else ""

    def stop(self, *, database: bool = True) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if database:
            stop_embedded_postgres(self.workdir / ".sors" / "pg")


def stop_embedded_postgres(pgdata: Path) -> None:
    """The demo's embedded server outlives the demo (it is shared by every process of the
    data dir); stop the one this test started, by its own pid file."""
    pid_file = pgdata / "postmaster.pid"
    with contextlib.suppress(OSError, ValueError):
        pid = int(pid_file.read_text().splitlines()[0])
        os.kill(pid, signal.SIGINT)  # fast shutdown
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.1)


def sors(workdir: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [".venv/bin/sors", *args], cwd=workdir, env=clean_env(workdir), capture_output=True,
        text=True, timeout=timeout,
    )


def link_venv(workdir: Path) -> None:
    """`.venv/bin/sors` in the tour means the repository's venv."""
    (workdir / ".venv").symlink_to(Path(sys.prefix))
