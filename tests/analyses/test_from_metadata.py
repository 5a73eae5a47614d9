"""A post whose media cannot be fetched still gets an analysis: a real Instagram export
imported with `sors import` (no media the platform source can serve) is analysed from what
the catalog holds, marked `basis: "metadata"`, at the lower price of the price list."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from sors.billing.pricing import get_pricing
from tests.api.bodies import assert_body_matches
from tests.cli.test_import import INSTAGRAM, imported
from tests.enrichment.api_support import charged, job, ledger_kinds
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import rows, set_time, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")
__all__ = ["sim_time_restored"]

OBSERVED = "2026-08-28T04:04:00Z"
LITERALS = re.compile(r"\b(True|False|None|nan)\b")


async def test_an_imported_instagram_post_is_analysed_from_its_metadata(
    runtime, client: httpx.AsyncClient, db, app, pg_url: str, tmp_path: Path
) -> None:
    await set_time(db, datetime(2026, 8, 29, 12, tzinfo=UTC))
    report = imported(pg_url, tmp_path, str(INSTAGRAM), "--observed-at", OBSERVED)
    assert report["files"][0]["posts"]["new"] == 12
    [top] = await rows(db, "SELECT id FROM posts ORDER BY coalesce(score_three_months, "
                           "score_all_time) DESC NULLS LAST, id LIMIT 1")
    account_id, key = await create_account(db, credits=20)

    r = await client.post("/api/v1/analyses", json={"postId": top["id"]}, headers=auth(key))
    assert r.status_code == 200 and charged(r) == 15, r.text
    job_ref = r.json()["jobRef"]
    await run_jobs_until_idle(runtime, timeout=120)
    body = (await client.get(f"/api/v1/analyses/{job_ref}", headers=auth(key))).json()
    assert body["status"] == "completed", body
    assert_body_matches(app, "GET", "/api/v1/analyses/{jobRef}", body)
    a = body["analysis"]
    assert a["basis"] == "metadata" and a["basisNote"]
    assert "Its media could not be fetched" in a["summary"]
    # What the catalog knows is compared: the caption, timing and numbers, never media.
    measured = {f["name"] for f in a["features"] if f["value"] is not None}
    assert {"captionLength", "durationSeconds"} & measured
    assert not {"cutsPerMinute", "spokenCallToAction"} & measured
    assert a["findings"] and all(re.search(r"\d", f["text"]) for f in a["findings"])
    assert not any(LITERALS.search(t) for t in [a["summary"], *(f["text"] for f in
                                                               a["findings"])])

    # Charged the metadata price: the difference came back with the result, once.
    cheaper = get_pricing().cost("analyze_post", "metadata_credits")
    assert cheaper < 15
    assert (await job(client, key, job_ref))["creditsRefunded"] == 15 - cheaper
    assert await balance_and_ledger_sum(db, account_id) == (20 - cheaper, 20 - cheaper)
    assert await ledger_kinds(db, account_id) == ["grant", "charge", "refund"]
    prices = (await client.get("/api/v1/pricing")).json()
    [skill] = [s for s in prices["skills"] if s["key"] == "analyze_post"]
    assert {"key": "metadata", "credits": cheaper}.items() <= skill["variants"][0].items()
