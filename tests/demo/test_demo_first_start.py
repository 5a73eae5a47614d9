"""`sors demo` in an empty directory serves before its simulated world is built: the price
list and searches answer (with outliers on every platform) while the rest is still being
built; Ctrl-C in the middle stops everything; a restart resumes the build, even with the
simulated clock moved meanwhile, and ends with exactly the planned world.

A small world (`sors demo --profiles 60`) keeps it quick; the showcase slice and the batches
are the same code as for the default 2,000 profiles.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
import pytest

from sors.demo import worldbuild
from sors.demo.worldbuild import HISTORY
from sors.kit import embedded
from sors.platforms.sim.world import SimWorld
from tests.demo.tour import Demo, link_venv, sors, stop_embedded_postgres
from tests.factories.cluster import free_port

PROFILES = 60
START = datetime(2026, 9, 22, 10, tzinfo=UTC)  # DEMO_START: where a new demo's clock starts
STOP_WITHIN = 10.0


@pytest.fixture
def workdir() -> Iterator[Path]:
    work = Path(tempfile.mkdtemp(prefix="sors-first-start-"))
    work.chmod(0o755)  # the embedded server runs as its own user and must reach .sors/pg
    link_venv(work)
    yield work
    stop_embedded_postgres(work / ".sors" / "pg")
    shutil.rmtree(work, ignore_errors=True)


def _status(work: Path) -> dict:
    out = sors(work, "demo", "status", "--json", timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


def _until(cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := cond():
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


def _db_url(work: Path) -> str:
    info = embedded.postmaster(work / ".sors")
    assert info is not None, "the embedded server runs"
    return info.get_uri("postgres", "sors")


def _ready(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT ready FROM sim_build").fetchone()[0]


def _search(base: str, key: str, body: dict) -> list[dict]:
    r = httpx.post(f"{base}/search/content", json=body, timeout=30,
                   headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200, r.text
    return r.json()["results"]


def test_first_start_serves_while_building_then_resumes(workdir: Path) -> None:
    demo = Demo(workdir, free_port(), args=("--profiles", str(PROFILES)))
    try:
        demo.start()
        assert f"0 of {PROFILES} profiles ready" in demo.output(), demo.output()
        base = f"http://127.0.0.1:{demo.port}/api/v1"
        key = (workdir / ".sors" / "demo_api_key").read_text().strip()
        assert httpx.get(f"{base}/pricing", timeout=30).status_code == 200

        # The showcase slice lands first; then hold the build at its next commit (every
        # batch updates the plan's row), so what follows happens before it finishes.
        url = _db_url(workdir)
        _until(lambda: _ready(url) > 0, 300, "the first profiles are in")
        conn = psycopg.connect(url)
        try:
            ready, planned = conn.execute(
                "SELECT ready, profiles FROM sim_build FOR UPDATE").fetchone()
            assert 0 < ready < planned == PROFILES

            tour = {"query": "recipe", "minOutlierScore": 5, "maxFollowers": 500000}
            assert _search(base, key, tour), "the README tour's search finds outliers"
            for platform in ("tiktok", "instagram", "youtube"):
                hits = _search(base, key, {"platforms": [platform], "minOutlierScore": 5})
                assert hits and all(h["platform"] == platform for h in hits), platform
            # Still building: the batches in flight wait for this row.
            assert conn.execute("SELECT ready FROM sim_build").fetchone()[0] == ready

            # Ctrl-C while batches wait on the lock: the demo and its server stop.
            os.killpg(demo.proc.pid, signal.SIGINT)
            demo.proc.wait(timeout=60)
            assert demo.proc.returncode == 0, demo.output()[-3000:]
            data = workdir / ".sors"
            _until(lambda: embedded.postmaster(data) is None, STOP_WITHIN,
                   "the embedded server stops after Ctrl-C")
        finally:
            with contextlib.suppress(psycopg.Error):
                conn.close()  # its session ended with the server
        assert "Traceback" not in demo.output(), demo.output()[-3000:]

        # Restart: it resumes from what is in, whatever the simulated clock says now.
        demo.start()
        assert f"{ready} of {PROFILES} profiles ready" in demo.output(), demo.output()
        moved = sors(workdir, "sim", "clock", "advance", "3d")
        assert moved.returncode == 0, moved.stderr
        done = _until(lambda: (st := _status(workdir))["complete"] and st, 600,
                      "the world is complete")
        assert done["ready"] == done["profiles"] == PROFILES
        assert "world_complete" in _until(
            lambda: "world_complete" in demo.output() and demo.output(), 30, "the log says so")

        planned = SimWorld(0).sample_handles(PROFILES)
        with psycopg.connect(_db_url(workdir)) as conn:
            rows = conn.execute("""
                SELECT p.platform, p.handle, p.first_seen_at FROM profiles p
                  JOIN unnest(%s::text[], %s::text[]) AS w(platform, handle)
                 USING (platform, handle)""",
                ([p for p, _ in planned], [h for _, h in planned])).fetchall()
            # Every planned profile once (the keeper may have added discovered creators
            # since the clock moved), each first crawled at the world's moment minus the
            # oldest history (a watched creator: at its first young-post refresh), not at
            # the moved clock.
            assert sorted((p, h) for p, h, _ in rows) == sorted(planned)
            world, order = SimWorld(0), worldbuild._order(0, PROFILES, START)
            times = {
                (p, h): worldbuild.crawl_times(world, p, h, START, watch=(p, h) in order.watched)
                for p, h in planned}
            assert {(p, h): first for p, h, first in rows} == {k: t[0] for k, t in times.items()}
            assert min(t[0] for t in times.values()) < START - max(HISTORY) < START
            moments = {r[0] for r in conn.execute(
                "SELECT DISTINCT crawled_at FROM post_stats WHERE crawled_at <= %s", (START,))}
            assert moments == {START, *(at for t in times.values() for at in t)}
    finally:
        demo.stop()

