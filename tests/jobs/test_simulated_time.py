"""In simulation every timestamp a caller sees reads the simulated clock: jobs (queued,
started, finished), ledger rows, transcripts and the mail outbox's file names — not the
machine's time beside a simulated world."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest

from sors.email.backends import FileBackend
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import set_time, sim_time_restored  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("sim_time_restored")

SIM_NOW = datetime(2026, 9, 25, 14, 0, tzinfo=UTC)


def _at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


async def test_jobs_ledger_and_transcripts_carry_the_simulated_time(
    db, runtime, client: httpx.AsyncClient
) -> None:
    await set_time(db, SIM_NOW)  # the test runtime's clock reads it at every refresh
    _, key = await create_account(db, credits=200)
    h = auth(key)
    r = await client.post("/api/v1/crawls", json={"platform": "tiktok", "handle": "sim.clock"},
                          headers=h)
    assert r.status_code == 200, r.text
    job_ref = r.json()["jobRef"]
    assert await run_jobs_until_idle(runtime) == 1
    job = (await client.get(f"/api/v1/jobs/{job_ref}", headers=h)).json()
    assert job["status"] == "completed", job
    for field in ("createdAt", "startedAt", "finishedAt"):
        assert abs(_at(job[field]) - SIM_NOW) < timedelta(minutes=1), (field, job[field])
    posts = (await client.post("/api/v1/search/content", headers=h, json={
        "contentTypes": ["slideshow"], "pageSize": 1})).json()["results"]
    assert posts, "the crawled profile has no slideshow"  # OCR: fast, no speech model
    t = await client.post("/api/v1/transcriptions", json={"postId": posts[0]["id"]}, headers=h)
    assert t.status_code == 200, t.text
    await run_jobs_until_idle(runtime, timeout=300)
    rec = (await client.get(f"/api/v1/posts/{posts[0]['id']}",
                            params={"includeTranscript": "true"}, headers=h)).json()
    assert abs(_at(rec["transcript"]["created_at"]) - SIM_NOW) < timedelta(minutes=1)
    ledger = (await client.get("/api/v1/credits/ledger", headers=h)).json()["results"]
    assert {e["kind"] for e in ledger} >= {"grant", "charge"}
    for e in ledger:
        if e["kind"] != "grant":  # the test's own grant is made outside any request
            assert abs(_at(e["createdAt"]) - SIM_NOW) < timedelta(minutes=1), e


async def test_the_mail_outbox_names_files_by_the_service_clock(tmp_path: Path) -> None:
    # A message carries the service clock's time in its Date header (email.messages).
    msg = EmailMessage()
    msg["To"], msg["From"], msg["Subject"] = "a@example.com", "b@example.com", "hi"
    msg["Date"] = format_datetime(SIM_NOW)
    msg.set_content("hello")
    await FileBackend(tmp_path).send(msg)
    [written] = list(tmp_path.glob("*.eml"))
    assert written.name.startswith("20260925T140000")
