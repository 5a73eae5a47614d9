"""The people's commands (`sors search`, `post`, `profile`, `credits`) against a real `sors
demo` over HTTP, finding its URL and key by themselves or told by flags and environment;
the API's errors read as sentences with a non-zero exit. The operator's listings on the same
demo's data: tables with headers that fit 80 columns, and progress while `scheduler
run-once` works. One small demo (60 profiles) serves the whole module.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.tour import Demo, clean_env, link_venv
from tests.factories.cluster import free_port

PROFILES = 60


def run(cwd: Path, *args: str, columns: int = 80, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cwd / ".venv" / "bin" / "sors"), *args], cwd=cwd,
        env=clean_env(cwd) | {"COLUMNS": str(columns)} | env,
        capture_output=True, text=True, timeout=600,
    )


def ok(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    workdir = Path(tempfile.mkdtemp(prefix="sors-cli-people-"))
    workdir.chmod(0o755)  # the embedded server runs as its own user and must reach .sors/pg
    link_venv(workdir)
    d = Demo(workdir, free_port(), args=("--profiles", str(PROFILES)))
    try:
        d.start()
        deadline = time.monotonic() + 300
        while not json.loads(ok(run(workdir, "demo", "status", "--json")))["complete"]:
            assert time.monotonic() < deadline, "the demo's world was not built in 300 s"
            time.sleep(1)
        yield d
    finally:
        d.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="module")
def key(demo: Demo) -> str:
    return (demo.workdir / ".sors" / "demo_api_key").read_text().strip()


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A directory with no demo data above it."""
    link_venv(tmp_path)
    return tmp_path


def _widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


def test_search_prints_a_table_of_outliers_that_fits_80_columns(demo: Demo) -> None:
    found = json.loads(ok(run(demo.workdir, "search", "--limit", "5", "--json")))
    assert len(found["results"]) == 5 and found["total"] > 5
    out = ok(run(demo.workdir, "search", "--limit", "5"))
    lines = out.splitlines()
    assert lines[0].startswith(f"outliers 1-5 of {found['total']:,}")
    assert lines[1].split()[:3] == ["score", "views", "creator"] and "id" in lines[1]
    for post, line in zip(found["results"], lines[2:7], strict=True):
        assert post["id"] in line and f"{post['platform']}:@{post['handle']}" in line
        assert line.split()[0].endswith("×")
    assert "more: --page 2" in out
    assert _widest(out) <= 80
    wide = ok(run(demo.workdir, "search", "--limit", "5", columns=160))
    assert "caption" in wide.splitlines()[1]  # room for the captions on a wide terminal
    assert found["results"][0]["caption"][:20] in wide


def test_search_filters_reach_the_api_and_csv_is_the_apis_own(demo: Demo) -> None:
    args = ("--platform", "youtube", "--min-score", "2", "--sort", "views", "--limit", "10")
    found = json.loads(ok(run(demo.workdir, "search", *args, "--json")))
    assert found["results"], found
    assert all(p["platform"] == "youtube" and p["score"] >= 2 for p in found["results"])
    views = [p["views"] for p in found["results"]]
    assert views == sorted(views, reverse=True)
    rows = list(csv.DictReader(io.StringIO(ok(run(demo.workdir, "search", *args, "--csv")))))
    assert [r["id"] for r in rows] == [p["id"] for p in found["results"]]
    assert "outlier_score_three_months" in rows[0]


def test_a_search_by_meaning_about_nothing_held_says_so_above_the_closest(demo: Demo) -> None:
    args = ("search", "best bass fishing lures", "--semantic", "--published-within", "all_time",
            "--limit", "3")
    found = json.loads(ok(run(demo.workdir, *args, "--json")))
    assert found["match"] == "none" and len(found["results"]) == 3
    lines = ok(run(demo.workdir, *args)).splitlines()
    assert lines[0] == "No posts about this yet — closest:"
    assert lines[1].startswith("outliers 1-3 of")
    assert all(p["id"] in "\n".join(lines) for p in found["results"])


def test_search_for_profiles(demo: Demo) -> None:
    found = json.loads(ok(run(demo.workdir, "search", "--profiles", "--limit", "3", "--json")))
    out = ok(run(demo.workdir, "search", "--profiles", "--limit", "3"))
    assert out.splitlines()[1].split()[0] == "profile"
    for p in found["results"]:
        assert p["id"] in out and f"{p['platform']}:@{p['handle']}" in out
    assert _widest(out) <= 80


def test_post_by_id_or_url_and_profile_by_id_url_or_handle(demo: Demo) -> None:
    first = json.loads(ok(run(demo.workdir, "search", "--limit", "1", "--json")))["results"][0]
    by_id = json.loads(ok(run(demo.workdir, "post", first["id"], "--json")))
    by_url = json.loads(ok(run(demo.workdir, "post", first["url"], "--json")))
    assert by_id["id"] == by_url["id"] == first["id"]
    table = ok(run(demo.workdir, "post", first["id"]))
    assert first["url"].replace("\n", "") in table.replace("\n", "").replace(" ", "")
    assert f"@{first['handle']} on {first['platform']}" in table
    row = next(csv.DictReader(io.StringIO(ok(run(demo.workdir, "post", first["id"], "--csv")))))
    assert row["id"] == first["id"] and row["handle"] == first["handle"]

    handle = f"{first['platform']}:@{first['handle']}"
    ids = {
        json.loads(ok(run(demo.workdir, "profile", ref, "--json")))["id"]
        for ref in (first["profile_id"], handle, by_id["profile"]["id"])
    }
    owner_url = json.loads(ok(run(demo.workdir, "profile", first["profile_id"], "--json")))["url"]
    ids.add(json.loads(ok(run(demo.workdir, "profile", owner_url, "--json")))["id"])
    assert ids == {first["profile_id"]}
    shown = ok(run(demo.workdir, "profile", handle))
    assert "latest posts" in shown and first["profile_id"] in shown
    assert _widest(shown) <= 80


def test_credits_show_the_balance_and_the_calls_just_made(demo: Demo) -> None:
    first = json.loads(ok(run(demo.workdir, "search", "--limit", "1", "--json")))["results"][0]
    before = json.loads(ok(run(demo.workdir, "credits", "--json")))
    ok(run(demo.workdir, "post", first["id"]))
    after = json.loads(ok(run(demo.workdir, "credits", "--json", "--limit", "5")))
    assert after["balance"] == before["balance"] - 1
    newest = after["ledger"]["results"][0]
    assert newest["skill"] == "get_post" and newest["balanceAfter"] == after["balance"]
    table = ok(run(demo.workdir, "credits"))
    assert f"balance  {after['balance']:,} credits" in table
    assert "get_post" in table and "get_post get_post" not in table
    rows = list(csv.DictReader(io.StringIO(ok(run(demo.workdir, "credits", "--csv")))))
    assert rows[0]["entryId"] == newest["entryId"]

    # The operator's grant is still `sors credits grant`, beside the balance.
    account = json.loads(ok(run(demo.workdir, "accounts", "list", "--json")))[0]["accountId"]
    ok(run(demo.workdir, "credits", "grant", account, "5", "--reason", "welcome back"))
    granted = json.loads(ok(run(demo.workdir, "credits", "--json")))
    assert granted["balance"] == after["balance"] + 5
    assert granted["ledger"]["results"][0]["kind"] == "grant"


def test_flags_and_environment_point_at_any_api(demo: Demo, key: str, elsewhere: Path) -> None:
    api = f"http://127.0.0.1:{demo.port}"
    by_flag = ok(run(elsewhere, "credits", "--json", "--api", api + "/api/v1", "--key", key))
    by_env = ok(run(elsewhere, "credits", "--json", SORS_API_URL=api, SORS_API_KEY=key))
    assert json.loads(by_flag)["balance"] == json.loads(by_env)["balance"]


def test_api_errors_are_sentences_with_a_non_zero_exit(demo: Demo, elsewhere: Path) -> None:
    missing = run(demo.workdir, "post", "pst_doesnotexist")
    assert missing.returncode == 1 and missing.stdout == ""
    assert "Post not found (HTTP 404, post_not_found)" in missing.stderr
    assert "request id: req_" in missing.stderr and "Traceback" not in missing.stderr

    refused = run(demo.workdir, "credits", "--key", "sors_not_a_real_key")
    assert refused.returncode == 1
    assert "HTTP 401" in refused.stderr and "--key" in refused.stderr

    invalid = run(demo.workdir, "search", "--published-within", "fortnight")
    assert invalid.returncode == 1 and "HTTP 422" in invalid.stderr
    assert "timeFrame" in invalid.stderr

    no_key = run(elsewhere, "credits")
    assert no_key.returncode == 1 and "no API key" in no_key.stderr
    assert "SORS_API_KEY" in no_key.stderr

    gone = run(elsewhere, "credits", "--api", f"http://127.0.0.1:{free_port()}", "--key", "k")
    assert gone.returncode == 1 and "cannot reach the sors API" in " ".join(gone.stderr.split())

    unknown = run(demo.workdir, "profile", "tiktok:@no.such.creator.here")
    assert unknown.returncode == 1 and "not in the catalog" in unknown.stderr


def test_keys_and_accounts_list_are_tables_with_headers_in_80_columns(demo: Demo) -> None:
    accounts = json.loads(ok(run(demo.workdir, "accounts", "list", "--json")))
    assert [a["email"] for a in accounts] == ["demo@example.com"]
    assert accounts[0]["activeKeys"] == 1 and accounts[0]["operator"] is True
    listed = ok(run(demo.workdir, "accounts", "list"))
    assert listed.splitlines()[0].split()[:3] == ["account", "email", "balance"]
    assert accounts[0]["accountId"] in listed and "demo@example.com" in listed

    ok(run(demo.workdir, "keys", "create", accounts[0]["accountId"], "--name",
           "a rather long name for a key that would wrap", "--daily-cap", "500"))
    keys = ok(run(demo.workdir, "keys", "list"))
    lines = keys.splitlines()
    assert accounts[0]["accountId"] in lines[0]
    assert lines[1].split()[:2] == ["key", "prefix"] and "state" in lines[1]
    assert len(lines) == 4  # the account, the header, two keys: nothing wraps
    assert "500/day" in keys and _widest(keys) <= 80
    listed = json.loads(ok(run(demo.workdir, "keys", "list", "--json")))
    assert all(k["keyId"] in keys for k in listed)


def test_feedback_list_says_when_there_is_none(demo: Demo) -> None:
    assert ok(run(demo.workdir, "feedback", "list")).strip() == "no feedback yet"


def test_scheduler_run_once_shows_progress_on_stderr_and_keeps_stdout_json(demo: Demo) -> None:
    # TTY_COMPATIBLE=1: rich treats stderr as the terminal a person would be watching.
    out = run(demo.workdir, "scheduler", "run-once", "--json", TTY_COMPATIBLE="1")
    summary = json.loads(ok(out))
    assert {"jobsRun", "refreshes", "keeperCrawls"} <= set(summary)
    assert "jobs done" in out.stderr and "━" in out.stderr
    quiet = run(demo.workdir, "scheduler", "run-once", "--json")  # a script: no bar
    assert json.loads(ok(quiet)) and quiet.stderr == ""


def test_version(elsewhere: Path) -> None:
    from importlib.metadata import version

    assert ok(run(elsewhere, "--version")).strip() == f"sors {version('sors')}"
