"""Schemathesis 4 against a real server: every operation, positive and negative cases,
the stateful links (search → get_post, crawl → job), every check. Its summary is printed
into the test log (CI's too). Where JSON Schema cannot state a rule, tests/api/
schemathesis.toml says so per operation, and the route declares the 4xx."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import Served

HERE = Path(__file__).parent
MAX_EXAMPLES = os.environ.get("SORS_FUZZ_EXAMPLES", "8")


def test_schemathesis_finds_nothing(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    st = Path(sys.executable).parent / "st"
    cmd = [
        str(st), "--config-file", str(HERE / "schemathesis.toml"), "run",
        f"{served.url}/api/v1/openapi.json",
        "--checks", "all",
        "--max-examples", MAX_EXAMPLES,
        "--seed", "14",
        "--workers", "1",
        "--no-shrink",
        "-H", f"Authorization: Bearer {served.key}",
        "--generation-database", "none",
        # See schemathesis.toml: the fuzzer must not cap or revoke its own key.
        "--exclude-operation-id-regex", "^(update_key|revoke_key)$",
    ]
    headers = {"Authorization": f"Bearer {served.key}"}
    assert httpx.get(f"{served.url}/api/v1/credits", headers=headers).status_code == 200
    env = {**os.environ, "NO_COLOR": "1", "SORS_FUZZ_POST_ID": served.post_id,
           "SORS_FUZZ_PROFILE_ID": served.profile_id}
    lines: list[str] = []
    with capsys.disabled():
        print("\n==> schemathesis:", " ".join(cmd[:6]), "...", flush=True)
        with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:  # shown as it runs, and kept for the checks below
                print(line, end="", flush=True)
                lines.append(line)
            code = proc.wait(timeout=900)
    out = "".join(lines)
    assert code == 0, "schemathesis found failures (see its report above)"
    assert "Authentication failed" not in out, "the fuzzer's key was refused"
    # It reached the paid paths: the account was charged for many successful calls.
    ledger = httpx.get(f"{served.url}/api/v1/credits/ledger", params={"limit": 200},
                       headers=headers).json()
    assert sum(1 for e in ledger["results"] if e["kind"] == "charge") >= 50
