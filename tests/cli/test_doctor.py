"""`sors doctor`: what each platform would use live and what it lacks, with a fix for each
failure; exit status 1 when a platform cannot work; `--live` asks for real (here: a loopback
Apify API that refuses a wrong token)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories.apify import GOOD_TOKEN, FakeApify


def doctor(tmp: Path, *args: str, **env: str) -> tuple[int, dict[str, Any]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    base |= {"SORS_DATA_DIR": str(tmp / ".sors"), "SORS_PLATFORM_SOURCE": "live", **env}
    out = subprocess.run([sys.executable, "-m", "sors.cli.main", "doctor", "--json", *args],
                         env=base, cwd=tmp, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout)


def by_platform(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["platform"]: p for p in report["platforms"]}


def checks(platform: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in platform["checks"]}


@pytest.fixture
def apify() -> Iterator[FakeApify]:
    fake = FakeApify().start()
    yield fake
    fake.stop()


def test_with_nothing_configured_it_says_what_to_configure_for_each_platform(tmp_path) -> None:
    code, report = doctor(tmp_path)
    assert code == 1 and report["exitStatus"] == 1
    p = by_platform(report)
    assert (p["tiktok"]["source"], p["instagram"]["source"], p["youtube"]["source"]) == (
        "web", "web", "web")
    assert "no SORS_APIFY_TOKEN" in p["tiktok"]["reason"]
    assert "no SORS_YOUTUBE_API_KEY" in p["youtube"]["reason"]
    session = checks(p["instagram"])["session"]
    assert session["status"] == "error" and "SORS_INSTAGRAM_SESSION_FILE" in session["fix"]
    assert "SORS_APIFY_TOKEN" in session["fix"]
    assert checks(p["youtube"])["data api"]["fix"].endswith("set SORS_YOUTUBE_API_KEY")
    # Every failing check comes with its fix.
    assert all(c["fix"] for r in report["platforms"] for c in r["checks"]
               if c["status"] != "ok")


def test_with_a_token_the_providers_are_used_and_a_refused_token_fails_live(
    tmp_path, apify: FakeApify
) -> None:
    env = {"SORS_APIFY_BASE_URL": apify.url, "SORS_YOUTUBE_SOURCE": "apify",
           "SORS_APIFY_DAILY_USD_BUDGET": "5", "SORS_BASE_URL": "https://sors.example.com"}
    code, report = doctor(tmp_path, "--live", SORS_APIFY_TOKEN=GOOD_TOKEN, **env)
    assert code == 0, report
    for p in report["platforms"]:
        assert p["source"] == "apify" and p["status"] == "ok", p
        assert "sors-tests" in checks(p)["live request"]["detail"]
    assert {path for _, path, _ in apify.calls} == {"/v2/users/me"}  # free: no actor run

    code, report = doctor(tmp_path, "--live", SORS_APIFY_TOKEN="apify_api_revoked", **env)
    assert code == 1
    live = checks(by_platform(report)["tiktok"])["live request"]
    assert live["status"] == "error" and "source_unavailable" in live["detail"]
    assert "SORS_APIFY_TOKEN" in live["fix"] and "apify_api_revoked" not in json.dumps(report)


def test_in_a_simulated_data_dir_it_reports_but_does_not_fail(tmp_path) -> None:
    code, report = doctor(tmp_path, SORS_PLATFORM_SOURCE="sim")
    assert code == 0 and report["platformSource"] == "sim"
