"""The service at scale, for real: two `sors api` and two `sors worker` processes sharing one
PostgreSQL (the Debian server, not the embedded one) and one Redis, all on loopback.

- 50 crawls spread over both APIs all finish; ghosts fail and are refunded; the ledger holds
  exactly one 40-credit charge per job and one refund per failed job.
- Shared rate limit: N+1 requests alternating between the APIs; the last is 429.
- A worker killed with SIGKILL mid-job: after the stall timeout its jobs are picked up by
  the other worker (or failed and refunded); none stays `processing`.

Skipped only when the PostgreSQL or Redis server binaries are missing (scripts/bootstrap.sh
installs them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from sors.platforms.sim.world import SimWorld
from tests.factories.cluster import (
    PostgresServer,
    RedisServer,
    SorsProcess,
    Unavailable,
    free_port,
    run_cli,
    wait_healthy,
)

pytestmark = pytest.mark.slow

STALL_SECONDS = 6
RATE_LIMIT = 300  # per key per minute; each test uses its own account (and key)
CRAWL_COST = 40
PLATFORMS = ("tiktok", "instagram", "youtube")


@dataclass
class Cluster:
    env: dict[str, str]
    db_url: str
    redis_url: str
    apis: list[httpx.Client]
    workers: list[SorsProcess]
    processes: list[SorsProcess] = field(default_factory=list)

    def sql(self, query: str, params: Any = None) -> list[tuple]:
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            return conn.execute(query, params).fetchall()

    def new_account(self, email: str, credits: int) -> tuple[str, str]:
        out = run_cli(["accounts", "create", "--email", email, "--credits", str(credits),
                       "--json"], self.env)
        data = json.loads(out.strip().splitlines()[-1])
        assert data["balance"] == credits and data["email"] == email
        assert data["accountId"].startswith("acc_") and data["apiKey"].startswith("sors_")
        return data["accountId"], data["apiKey"]

    def logs(self) -> str:
        return "\n".join(p.describe() for p in self.processes)


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    workdir = Path(tempfile.mkdtemp(prefix="sors-e2e-"))
    request.addfinalizer(lambda: shutil.rmtree(workdir, ignore_errors=True))
    try:
        redis = RedisServer(workdir)
        pg = PostgresServer()
    except Unavailable as exc:
        pytest.skip(f"multi-process tests need the system servers: {exc}")
    request.addfinalizer(pg.stop)
    pg.start()
    with psycopg.connect(pg.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE sors")
    request.addfinalizer(redis.stop)
    redis.start()

    db_url = pg.url("sors")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env.update({
        "SORS_DATABASE_URL": db_url,
        "SORS_REDIS_URL": redis.url,
        "SORS_PLATFORM_SOURCE": "sim",
        "SORS_DATA_DIR": str(workdir / "data"),
        "SORS_SECRET_KEY": "e2e-secret-key-not-for-production-0123456789",
        "SORS_JOB_STALL_SECONDS": str(STALL_SECONDS),
        "SORS_RATE_LIMIT_PER_MINUTE": str(RATE_LIMIT),
        "SORS_EMAIL_BACKEND": "file",
        "SORS_PAYMENTS": "local",
        "SORS_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    })
    run_cli(["migrate"], env)

    processes: list[SorsProcess] = []
    ports = []
    for i in (1, 2):
        port = free_port()
        ports.append(port)
        proc = SorsProcess(
            f"api{i}", ["api", "--host", "127.0.0.1", "--port", str(port)], env, workdir)
        processes.append(proc)
        request.addfinalizer(proc.stop)
    workers = []
    for i in (1, 2):
        proc = SorsProcess(f"worker{i}", ["worker"], env, workdir)
        processes.append(proc)
        workers.append(proc)
        request.addfinalizer(proc.stop)
    for port, proc in zip(ports, processes[:2], strict=True):
        wait_healthy(f"http://127.0.0.1:{port}", proc)

    apis = [httpx.Client(base_url=f"http://127.0.0.1:{p}", timeout=30) for p in ports]
    for c in apis:
        request.addfinalizer(c.close)
    yield Cluster(env=env, db_url=db_url, redis_url=redis.url, apis=apis, workers=workers,
                  processes=processes)


@pytest.fixture(autouse=True)
def _process_logs_on_failure(request: pytest.FixtureRequest, cluster: Cluster) -> Iterator[None]:
    yield
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(cluster.logs())  # shown with the failure, under "Captured stdout teardown"


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def new_handles(count: int, *, prefix: str) -> list[tuple[str, str]]:
    """`count` (platform, handle) pairs that exist in the simulated world and never take
    part in a rename (a renamed handle would legitimately fail with profile_not_found)."""
    world = SimWorld(0)
    out: list[tuple[str, str]] = []
    i = 0
    while len(out) < count:
        platform = PLATFORMS[i % 3]
        handle = f"{prefix}_{i:03d}"
        if world.is_stable_handle(platform, handle):
            out.append((platform, handle))
        i += 1
    return out


def post_crawls(cluster: Cluster, key: str, targets: list[tuple[str, str]]) -> list[str]:
    refs = []
    for i, (platform, handle) in enumerate(targets):
        api = cluster.apis[i % 2]  # spread over both API processes
        r = api.post(
            "/api/v1/crawls", json={"platform": platform, "handle": handle}, headers=auth(key))
        assert r.status_code == 200, (api.base_url, r.status_code, r.text)
        body = r.json()
        assert body["status"] == "pending" and body["handle"] == handle, body
        assert r.headers["x-credits-charged"] == str(CRAWL_COST)
        refs.append(body["jobRef"])
    assert len(set(refs)) == len(refs)
    return refs


def wait_for_jobs(cluster: Cluster, key: str, refs: list[str], timeout: float) -> dict[str, dict]:
    """Poll GET /jobs/{ref} through both APIs in turn until every job is finished."""
    done: dict[str, dict] = {}
    todo = list(refs)
    n = 0
    deadline = time.monotonic() + timeout
    while todo:
        ref = todo[0]
        r = cluster.apis[n % 2].get(f"/api/v1/jobs/{ref}", headers=auth(key))
        n += 1
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["jobRef"] == ref and body["type"] == "crawl"
        if body["status"] in ("completed", "failed"):
            done[ref] = body
            todo.pop(0)
            continue
        if time.monotonic() > deadline:
            states = cluster.sql("SELECT status, count(*) FROM jobs GROUP BY status")
            pytest.fail(f"jobs still unfinished after {timeout}s: {todo[:5]}… {states}\n"
                        f"{cluster.logs()}")
        time.sleep(0.25)
    return done


def full_ledger(cluster: Cluster, key: str) -> list[dict]:
    entries: list[dict] = []
    before = None
    for n in range(100):
        params: dict[str, Any] = {"limit": 200}
        if before:
            params["before"] = before
        r = cluster.apis[n % 2].get("/api/v1/credits/ledger", params=params, headers=auth(key))
        assert r.status_code == 200, r.text
        page = r.json()
        entries += page["results"]
        if not page["hasMore"]:
            return entries
        before = page["nextBefore"]
    raise AssertionError("ledger paging did not end")


def check_ledger(cluster: Cluster, account_id: str, key: str, initial: int,
                 jobs: dict[str, dict]) -> None:
    """One 40-credit charge per job, one refund per failed job (and none for the others),
    balance == ledger sum == initial - 40 x completed."""
    entries = full_ledger(cluster, key)
    kinds = Counter(e["kind"] for e in entries)
    failed = {ref for ref, j in jobs.items() if j["status"] == "failed"}
    completed = {ref for ref, j in jobs.items() if j["status"] == "completed"}
    refunds = {"refund": len(failed)} if failed else {}
    assert kinds == Counter({"grant": 1, "charge": len(jobs), **refunds}), kinds

    charges = {e["jobRef"]: e for e in entries if e["kind"] == "charge"}
    assert set(charges) == set(jobs), "one charge per job, for exactly these jobs"
    assert all(e["credits"] == -CRAWL_COST and e["skill"] == "crawl_profile"
               for e in charges.values())
    refunds = [e for e in entries if e["kind"] == "refund"]
    assert sorted(e["jobRef"] for e in refunds) == sorted(failed)
    for e in refunds:
        assert e["credits"] == CRAWL_COST and e["refundOf"] == charges[e["jobRef"]]["entryId"]
    for ref, job in jobs.items():
        assert job["creditsCharged"] == CRAWL_COST
        assert job["creditsRefunded"] == (CRAWL_COST if ref in failed else 0), job

    expected = initial - CRAWL_COST * len(completed)
    ledger_sum = sum(e["credits"] for e in entries)
    balance = cluster.apis[0].get("/api/v1/credits", headers=auth(key)).json()["balance"]
    [(db_balance, db_sum)] = cluster.sql(
        "SELECT a.balance, (SELECT COALESCE(sum(delta), 0) FROM ledger_entries l "
        "WHERE l.account_id = a.id) FROM accounts a WHERE a.id = %s", (account_id,))
    assert balance == ledger_sum == db_balance == db_sum == expected, (
        balance, ledger_sum, db_balance, db_sum, expected)


def worker_pid(worker_id: str | None) -> int | None:
    m = re.match(r"^[^:]*:(\d+):", worker_id or "")
    return int(m.group(1)) if m else None


# ---- the tests ----------------------------------------------------------------------------

def test_fifty_crawls_across_two_apis_and_two_workers(cluster: Cluster) -> None:
    initial = 5000
    account_id, key = cluster.new_account("e2e-crawls@example.com", initial)
    targets = new_handles(45, prefix="e2e")
    ghosts = [(PLATFORMS[i % 3], f"ghost_e2e_{i}") for i in range(5)]
    # Ghosts spread through the batch, so they run interleaved with the real crawls.
    batch = targets[:]
    for n, g in enumerate(ghosts):
        batch.insert(n * 10 + 3, g)
    assert len(batch) == 50
    refs = post_crawls(cluster, key, batch)
    ghost_refs = {ref for ref, t in zip(refs, batch, strict=True) if t in ghosts}

    jobs = wait_for_jobs(cluster, key, refs, timeout=120)

    for ref in refs:
        job = jobs[ref]
        if ref in ghost_refs:
            assert job["status"] == "failed", job
            assert job["error"]["code"] == "profile_not_found"
            assert job["creditsRefunded"] == CRAWL_COST
        else:
            assert job["status"] == "completed", job
            assert job["error"] is None and job["result"]["profileId"].startswith("prf_")
            assert job["result"]["postsSeen"] > 0
            assert job["startedAt"] and job["finishedAt"]
    check_ledger(cluster, account_id, key, initial, jobs)

    # Both worker processes took part. (Attempts are not asserted: on a starved machine a
    # heartbeat can arrive late and a job legitimately run twice; the ledger above shows it
    # was still charged once.)
    rows = cluster.sql("SELECT worker_id FROM jobs WHERE id = ANY(%s)", (refs,))
    pids = {worker_pid(w) for (w,) in rows}
    assert pids == {w.pid for w in cluster.workers}, (pids, [w.pid for w in cluster.workers])
    # The crawled profiles are visible through either API (tracked now: 1 credit, no job).
    platform, handle = targets[0]
    r = cluster.apis[1].post(
        "/api/v1/crawls", json={"platform": platform, "handle": handle}, headers=auth(key))
    assert r.status_code == 200 and r.json()["alreadyTracked"] is True
    assert r.headers["x-credits-charged"] == "1"


def test_rate_limit_is_shared_through_redis(cluster: Cluster) -> None:
    _, key = cluster.new_account("e2e-ratelimit@example.com", 10)
    for i in range(RATE_LIMIT):
        r = cluster.apis[i % 2].get("/api/v1/credits", headers=auth(key))
        assert r.status_code == 200, (i, r.status_code, r.text)
        # The remaining count falls by one per request, whichever process served it.
        assert f'r={RATE_LIMIT - 1 - i};' in r.headers["ratelimit"], (i, r.headers["ratelimit"])
        assert r.headers["ratelimit-policy"] == f'"default";q={RATE_LIMIT};w=60'
    # Each process alone has seen only half of the limit; the next request is still refused.
    r = cluster.apis[RATE_LIMIT % 2].get("/api/v1/credits", headers=auth(key))
    assert r.status_code == 429, r.text
    assert r.json()["code"] == "rate_limited"
    assert int(r.headers["retry-after"]) >= 1
    r = cluster.apis[(RATE_LIMIT + 1) % 2].get("/api/v1/credits", headers=auth(key))
    assert r.status_code == 429


def catch_mid_job(cluster: Cluster, victim: SorsProcess, account_id: str) -> list[str]:
    """kill -9 the victim while jobs are `processing` on it; returns those jobs.

    Watch the jobs table until the victim holds some, then freeze it (SIGSTOP) and look
    again: frozen, it cannot finish a job between that look and the SIGKILL. If it finished
    them meanwhile, let it go on (SIGCONT) and watch again."""
    mine = ("SELECT id FROM jobs WHERE account_id = %s AND status = 'processing' "
            "AND worker_id LIKE %s")
    params = (account_id, f"%:{victim.pid}:%")
    deadline = time.monotonic() + 60
    with psycopg.connect(cluster.db_url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            if not conn.execute(mine, params).fetchall():
                time.sleep(0.005)
                continue
            os.kill(victim.pid, signal.SIGSTOP)
            rows = conn.execute(mine, params).fetchall()
            if rows:
                os.kill(victim.pid, signal.SIGKILL)
                victim.proc.wait(timeout=10)
                return [r[0] for r in rows]
            os.kill(victim.pid, signal.SIGCONT)
    pytest.fail(f"never caught the victim worker mid-job\n{cluster.logs()}")


def test_worker_killed_mid_job_is_recovered(cluster: Cluster) -> None:
    initial = 5000
    account_id, key = cluster.new_account("e2e-kill@example.com", initial)
    victim, survivor = cluster.workers
    assert victim.alive() and survivor.alive()
    # The survivor is paused while the crawls are queued, so the victim surely has work in
    # hand; the crawls are posted from a thread while this one watches for the moment.
    os.kill(survivor.pid, signal.SIGSTOP)
    try:
        with ThreadPoolExecutor(1) as pool:
            posting = pool.submit(post_crawls, cluster, key, new_handles(60, prefix="kill"))
            caught = catch_mid_job(cluster, victim, account_id)
            refs = posting.result()
    finally:
        os.kill(survivor.pid, signal.SIGCONT)
    assert set(caught) <= set(refs)
    killed_at = time.monotonic()

    # Its jobs stay `processing` (nobody heartbeats them) until the stall timeout passes.
    stuck = cluster.sql("SELECT id FROM jobs WHERE id = ANY(%s) AND status = 'processing'",
                        (caught,))
    assert stuck, "the killed worker's jobs should still be processing right after the kill"

    jobs = wait_for_jobs(cluster, key, refs, timeout=90)
    assert time.monotonic() - killed_at >= STALL_SECONDS - 1  # recovery needed the reaper

    assert not cluster.sql("SELECT id FROM jobs WHERE status = 'processing'")
    rows = {r[0]: r for r in cluster.sql(
        "SELECT id, status, attempts, worker_id, error FROM jobs WHERE id = ANY(%s)", (caught,))}
    for ref in caught:
        _, status, attempts, worker_id, _ = rows[ref]
        job = jobs[ref]
        if status == "completed":
            # Re-queued by the survivor's reaper and run again, by the survivor.
            assert attempts >= 2 and worker_pid(worker_id) == survivor.pid, rows[ref]
        else:
            assert status == "failed" and job["creditsRefunded"] == CRAWL_COST, job
    # Every other job completed normally (all handles exist); the money adds up.
    for ref, job in jobs.items():
        assert job["status"] == "completed" or ref in caught, job
    check_ledger(cluster, account_id, key, initial, jobs)
    assert survivor.alive(), survivor.describe()
