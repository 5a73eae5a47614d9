"""The CLI finds the demo's data from anywhere and says how when it cannot; the demo keeps
one key across restarts; the API index and the base URL answer; no warnings at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from sors.cli.server import DEMO_EMAIL, DEMO_KEY_FILE, ensure_demo_account
from sors.config import Settings

pytestmark = pytest.mark.usefixtures("clean")


def _cli(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    return subprocess.run(
        [sys.executable, "-W", "error", "-m", "sors.cli.main", *args], cwd=cwd, env=base | env,
        capture_output=True, text=True, timeout=120,
    )


def _plain_url(pg_url: str) -> str:
    return pg_url.replace("postgresql+psycopg://", "postgresql://", 1)


def test_cli_finds_the_data_dir_from_below_and_by_flag_or_env(tmp_path: Path, pg_url: str) -> None:
    data = tmp_path / "project" / ".sors"
    data.mkdir(parents=True)
    (data / "platform_source").write_text("sim\n")  # what `sors demo` leaves there
    deep = tmp_path / "project" / "notes" / "week1"
    deep.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = _plain_url(pg_url)

    below = _cli(["sim", "clock", "show"], deep, SORS_DATABASE_URL=db)
    assert below.returncode == 0, below.stderr
    assert below.stdout.strip().endswith("Z") and below.stderr == ""

    flag = _cli(["--data-dir", str(data), "sim", "clock", "show"], elsewhere, SORS_DATABASE_URL=db)
    assert flag.returncode == 0 and flag.stdout == below.stdout, flag.stderr
    env = _cli(["sim", "clock", "show"], elsewhere, SORS_DATABASE_URL=db, SORS_DATA_DIR=str(data))
    assert env.returncode == 0 and env.stdout == below.stdout, env.stderr


def test_cli_outside_any_data_dir_says_how_to_point_at_it(tmp_path: Path) -> None:
    for args in (["sim", "clock", "show"], ["keys", "list"], ["scheduler", "run-once"]):
        out = _cli(args, tmp_path)
        assert out.returncode == 1, (args, out.stdout, out.stderr)
        message = " ".join(out.stderr.split())
        assert "no sors data in" in message and "--data-dir" in message, message
        assert "SORS_DATA_DIR" in message
        assert "Traceback" not in out.stderr
    assert not (tmp_path / ".sors").exists()  # nothing half-made left behind


def test_a_live_data_dir_refuses_the_sim_clock_and_says_why(tmp_path: Path, pg_url: str) -> None:
    data = tmp_path / ".sors"
    (data / "pg").mkdir(parents=True)
    out = _cli(["sim", "clock", "show"], tmp_path, SORS_DATABASE_URL=_plain_url(pg_url))
    message = " ".join(out.stderr.split())
    assert out.returncode == 1 and "SORS_PLATFORM_SOURCE=sim" in message
    assert "--data-dir" in message


async def test_three_demo_starts_leave_one_active_key(
    db, settings: Settings, tmp_path: Path
) -> None:
    s = settings.with_values(data_dir=tmp_path)
    now = datetime(2026, 9, 22, 10, 0, tzinfo=UTC)  # the demo's simulated time
    first = await ensure_demo_account(db, s, now)
    again = [await ensure_demo_account(db, s, now) for _ in range(3)]
    assert all(a == first for a in again)  # same account, same key, same balance
    assert (tmp_path / DEMO_KEY_FILE).stat().st_mode & 0o777 == 0o600

    async def active_keys() -> int:
        async with db.session() as session:
            return (await session.execute(text(
                "SELECT count(*) FROM api_keys k JOIN accounts a ON a.id = k.account_id "
                "WHERE a.email = :e AND k.revoked_at IS NULL"), {"e": DEMO_EMAIL})).scalar_one()

    assert await active_keys() == 1
    # The stored key lost (a new checkout of the repo on the same database): a new key, and
    # the one it replaces is revoked, not left active.
    (tmp_path / DEMO_KEY_FILE).unlink()
    fresh = await ensure_demo_account(db, s, now)
    assert fresh[0] == first[0] and fresh[1] != first[1]
    assert await active_keys() == 1


async def test_api_index_and_base_url_answer(client) -> None:
    r = await client.get("/api/v1")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body["links"]) >= {"docs", "openapi", "pricing"}
    for url in body["links"].values():
        assert url.startswith("http://testserver/")
        followed = await client.get(url.removeprefix("http://testserver"), follow_redirects=True)
        assert followed.status_code == 200, (url, followed.status_code)
    root = await client.get("/", follow_redirects=True)
    assert root.status_code == 200 and "text/html" in root.headers["content-type"]


def test_the_openapi_document_builds_without_warnings(settings: Settings) -> None:
    from sors.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = create_app(settings).openapi()
    media = doc["paths"]["/media/{token}"]
    ids = [op["operationId"] for op in media.values()]
    assert "get" in media and len(ids) == len(set(ids))  # GET and HEAD: one id each
