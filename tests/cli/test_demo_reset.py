"""`sors demo reset` deletes a demo's data only when asked to and only when nothing uses it:
refused (and nothing deleted) while the demo runs or without `--yes`; afterwards the next
`sors demo` starts a new world with a new account and key."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.tour import Demo, link_venv, sors, stop_embedded_postgres
from tests.factories.cluster import free_port


@pytest.fixture
def workdir() -> Iterator[Path]:
    work = Path(tempfile.mkdtemp(prefix="sors-demo-reset-"))
    work.chmod(0o755)  # the embedded server runs as its own user and must reach .sors/pg
    link_venv(work)
    yield work
    stop_embedded_postgres(work / ".sors" / "pg")
    shutil.rmtree(work, ignore_errors=True)


def _credits(work: Path) -> dict:
    out = sors(work, "credits", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


def test_reset_is_refused_while_the_demo_runs_and_then_starts_afresh(workdir: Path) -> None:
    data = workdir / ".sors"
    demo = Demo(workdir, free_port(), args=("--profiles", "20"))
    demo.start()
    try:
        key = (data / "demo_api_key").read_text().strip()
        assert sors(workdir, "search", "--limit", "1").returncode == 0  # 1 credit spent
        assert _credits(workdir)["balance"] == 10_000 - 1
        unconfirmed = sors(workdir, "demo", "reset")  # no terminal to ask on: refused
        assert unconfirmed.returncode == 1 and "--yes" in unconfirmed.stderr
        running = sors(workdir, "demo", "reset", "--yes")
        assert running.returncode == 1, running.stdout + running.stderr
        message = " ".join(running.stderr.split())
        assert "still uses" in message and "nothing was deleted" in message
        assert (data / "pg").is_dir() and _credits(workdir)["balance"] == 10_000 - 1
    finally:
        demo.stop()

    reset = sors(workdir, "demo", "reset", "--yes")
    assert reset.returncode == 0, reset.stdout + reset.stderr
    assert [p.name for p in data.iterdir()] == ["run"]
    assert sors(workdir, "demo", "status").returncode == 1  # no data left to report on

    again = Demo(workdir, free_port(), args=("--profiles", "20"))
    again.start()
    try:
        assert (data / "demo_api_key").read_text().strip() != key
        assert _credits(workdir)["balance"] == 10_000
    finally:
        again.stop()


def test_reset_refuses_a_data_dir_that_is_not_a_demos(tmp_path: Path) -> None:
    link_venv(tmp_path)
    nothing = sors(tmp_path, "demo", "reset", "--yes")
    assert nothing.returncode == 1 and "nothing to reset" in nothing.stderr
    live = tmp_path / ".sors"
    live.mkdir()
    (live / "platform_source").write_text("live\n")
    (live / "keep.txt").write_text("mine")
    refused = sors(tmp_path, "demo", "reset", "--yes")
    assert refused.returncode == 1 and "not a demo's data" in " ".join(refused.stderr.split())
    assert (live / "keep.txt").read_text() == "mine"
