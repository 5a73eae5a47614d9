"""Schemathesis on the operations whose request rules the document now states (the paging
window, "one of" targets with non-null values, platform + handle together, the URL forms):
positive cases only, with the rate limit lifted, and a 422 is a failure — a request the
document admits must never be refused. (The full fuzz, tests/api/test_schemathesis.py,
still lets the rules no schema can hold answer 422.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.conftest import Served

OPERATIONS = ("search_outliers", "search_profiles", "resolve_post_url", "request_transcript",
              "download_post_media", "remix_post", "track_profile", "crawl_profile")
EXAMPLES = os.environ.get("SORS_FUZZ_RULE_EXAMPLES", "30")


def test_requests_the_document_admits_are_never_a_422(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "strict.toml"
    config.write_text(
        "[[operations]]\n"
        f'include-operation-id-regex = "^({"|".join(OPERATIONS)})$"\n'
        'checks.positive_data_acceptance.expected-statuses = '
        '["2xx", "401", "402", "403", "404", "409", "429", "5xx"]\n'
        "[cache]\nenabled = false\n"
    )
    st = Path(sys.executable).parent / "st"
    cmd = [
        str(st), "--config-file", str(config), "run", f"{served.url}/api/v1/openapi.json",
        "--include-operation-id-regex", f"^({'|'.join(OPERATIONS)})$",
        "--checks", "positive_data_acceptance", "--mode", "positive",
        "--phases", "examples,coverage,fuzzing", "--max-examples", EXAMPLES, "--seed", "33",
        "--workers", "1", "--no-shrink", "--generation-database", "none",
        "-H", f"Authorization: Bearer {served.key}",
    ]
    done = subprocess.run(cmd, env={**os.environ, "NO_COLOR": "1"}, capture_output=True,
                          text=True, timeout=900, check=False)
    out = done.stdout + done.stderr
    with capsys.disabled():
        print("\n==> schemathesis (document rules):\n" + out[-3000:], flush=True)
    selected = re.search(r"Selected: (\d+)/", out)
    assert selected and int(selected[1]) == len(OPERATIONS), out[-2000:]
    assert done.returncode == 0, "a request the document admits was refused (see above)"
