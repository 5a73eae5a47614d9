"""The README's Python MCP client example, taken from README.md itself and run as printed
against a live `sors serve` (only the environment it reads differs), so it cannot rot when
the `mcp` SDK's client API changes again."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from sors.kit.db import Database
from tests.agents.walk import make_targets
from tests.factories import balance_and_ledger_sum, create_account
from tests.factories.world import scalar

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Use it from an agent"


def readme_client_example() -> str:
    text = README.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    [code] = re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)
    return code


def test_the_readme_has_one_short_python_client_example() -> None:
    code = readme_client_example()
    assert len(code.strip().splitlines()) <= 20
    assert "from mcp import Client" in code and "SORS_API_KEY" in code


async def test_the_readme_python_client_runs_as_printed(sors_serve: str, db: Database) -> None:
    account_id, key = await create_account(db, credits=5, email="readme@example.com")
    await make_targets(db, "readme")
    env = {**os.environ, "SORS_API_URL": sors_serve, "SORS_API_KEY": key}
    run = subprocess.run([sys.executable, "-c", readme_client_example()], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    skills = httpx.get(sors_serve + "/api/v1/pricing").json()["skills"]
    assert lines[0] == f"{len(skills)} tools"
    results = lines[1:]
    assert len(results) == 3, run.stdout
    for line in results:
        score, url = line.split(" ", 1)
        assert url.startswith("https://") and (score == "None" or float(score) >= 0)
    # One search through the tool: one credit, charged once, in the ledger.
    assert await balance_and_ledger_sum(db, account_id) == (4, 4)
    assert await scalar(db, "SELECT count(*) FROM ledger_entries WHERE account_id = :a "
                            "AND skill = 'search_outliers'", a=account_id) == 1
