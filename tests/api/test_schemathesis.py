"""Schemathesis 4 against a real server: every operation, positive and negative cases,
the stateful links (search → get_post, crawl → job), every check. Its summary is printed
into the test log (CI's too). Where JSON Schema cannot state a rule, tests/api/
schemathesis.toml says so per operation, and the route declares the 4xx.

update_key and revoke_key are fuzzed too, but on two keys of the same account made here for
the purpose (schemathesis.toml pins their `keyId`), never on the key the fuzzer runs with;
the run's own report shows which keys they touched, and the account shows the fuzzer's key
unharmed afterwards."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import Served
from tests.api.fuzz_report import declared_link, followed, read_steps

HERE = Path(__file__).parent
MAX_EXAMPLES = os.environ.get("SORS_FUZZ_EXAMPLES", "8")
# The links the issue names: each must be followed with the value its answer held.
LINKS = [("search_outliers", "get_post"), ("crawl_profile", "get_job_status")]


def test_schemathesis_finds_nothing(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    headers = {"Authorization": f"Bearer {served.key}"}
    api = f"{served.url}/api/v1"
    assert httpx.get(f"{api}/credits", headers=headers).status_code == 200
    targets = {
        role: httpx.post(f"{api}/keys", json={"name": f"fuzz {role} target"},
                         headers=headers).json()["keyId"]
        for role in ("update", "revoke")
    }
    own_key = _current_key(api, headers)
    # A webhook endpoint with one delivery, so the links from list_webhooks and
    # list_webhook_deliveries lead the stateful phase to real records (loopback: the fixture
    # allows it; no worker runs, so nothing is delivered).
    hook = httpx.post(f"{api}/webhooks", json={"url": "http://127.0.0.1:9/sors-fuzz"},
                      headers=headers)
    assert hook.status_code == 200, hook.text
    sent = httpx.post(f"{api}/webhooks/{hook.json()['id']}/test", headers=headers)
    assert sent.status_code == 200, sent.text
    # A plan with seats (Agency: 10), so invite_member can succeed and the subscription
    # routes act on a subscription; the local provider's page is paid by posting its form.
    link = httpx.post(f"{api}/subscriptions/checkout", json={"planId": "agency"},
                      headers=headers)
    assert link.status_code == 200, link.text
    checkout = "/subscribe/" + link.json()["checkoutUrl"].rsplit("/", 1)[1]
    assert httpx.post(f"{served.url}{checkout}/pay").status_code == 200
    report = tmp_path / "events.ndjson"
    st = Path(sys.executable).parent / "st"
    cmd = [
        str(st), "--config-file", str(HERE / "schemathesis.toml"), "run",
        f"{api}/openapi.json",
        "--checks", "all",
        "--max-examples", MAX_EXAMPLES,
        "--seed", "14",
        "--workers", "1",
        "--no-shrink",
        "-H", f"Authorization: Bearer {served.key}",
        "--generation-database", "none",
        "--report", "ndjson", "--report-ndjson-path", str(report),
    ]
    env = {**os.environ, "NO_COLOR": "1", "SORS_FUZZ_UPDATE_KEY_ID": targets["update"],
           "SORS_FUZZ_REVOKE_KEY_ID": targets["revoke"]}
    out = _run(cmd, env, capsys)
    assert "Authentication failed" not in out, "the fuzzer's key was refused"

    # Every operation of the document was selected and tested.
    selected = re.search(r"Selected: (\d+)/(\d+)", out)
    tested = re.search(r"Tested: (\d+)", out)
    assert selected and tested, "no operations summary in the run's output"
    assert selected[1] == selected[2] == tested[1], selected[0]

    # The stateful phase ran and followed links; the two the issue names, truly followed.
    stats = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", out)
    assert stats and int(stats[1]) > 0, "the stateful phase followed no link"
    steps = read_steps(report)
    openapi = httpx.get(f"{api}/openapi.json").json()
    with capsys.disabled():
        print("\n==> links followed with the value their answer held (stateful phase):")
        for source, target in LINKS:
            link = declared_link(openapi, source, target)
            n = len(followed([s for s in steps if s.phase == "stateful"], link))
            print(f"    {source} -[{link.name}: {link.expression}]-> {target}: {n} calls, 2xx")
            assert n > 0, f"the link {source} → {target} was never followed"

    # The key operations touched only their own targets; each did its job at least once.
    key_steps = [s for s in steps if s.template == "/api/v1/keys/{keyId}"]
    assert {s.path_parameters.get("keyId") for s in key_steps} <= set(targets.values())
    assert {s.path.rsplit("/", 1)[1] for s in key_steps} <= set(targets.values())
    assert any(s.method == "PATCH" and s.status == 200 for s in key_steps)
    assert sum(s.method == "DELETE" and s.status == 200 for s in key_steps) == 1
    listed = {k["keyId"]: k for k in httpx.get(f"{api}/keys", headers=headers).json()["results"]}
    own = listed[own_key["keyId"]]
    assert own["current"] and own["dailyCreditCap"] is None
    assert targets["update"] in listed and targets["revoke"] not in listed

    # It reached the paid paths: the account was charged for many successful calls.
    ledger = httpx.get(f"{api}/credits/ledger", params={"limit": 200}, headers=headers).json()
    assert sum(1 for e in ledger["results"] if e["kind"] == "charge") >= 50


def _current_key(api: str, headers: dict[str, str]) -> dict:
    keys = httpx.get(f"{api}/keys", headers=headers).json()["results"]
    (own,) = [k for k in keys if k["current"]]
    assert own["dailyCreditCap"] is None
    return own


def _run(cmd: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> str:
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
    assert code == 0, "schemathesis found failures (see its report above)"
    return "".join(lines)
