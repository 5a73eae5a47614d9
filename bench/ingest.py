"""Ingest at a million posts (issue 13): 100-profile batches through the real `ingest_crawls`
into copies of the 1M-post benchmark database, and the time until a new crawl is searchable.

    createdb -T sors_bench_m sors_bench_13a    # stays at main's schema: the "before" code
    createdb -T sors_bench_m sors_bench_13b    # migrated with this branch: the "after" code
    python bench/ingest.py run --admin-url URL --before-db sors_bench_13a \
        --after-db sors_bench_13b [--rounds 4] [--streams 1,2] [--prewarm] \
        [--write docs/PERFORMANCE.md --label "…"]
    python bench/ingest.py run --admin-url URL --after-db sors_bench_13b --streams 1,2 --prewarm
    python bench/ingest.py searchable --admin-url URL --database sors_bench_13b

`run` ingests, per round, one batch of 100 re-crawls (profiles already in the catalog,
crawled again a day after their last crawl: views moved, so every score moves) and one batch
of 100 first crawls (handles the catalog has never seen), each batch once with the code of
`--before` (read from git: ingest and scoring as they were) into the before copy and once
with the working tree's code into the after copy, alternating which goes first. Both copies
receive the same snapshots, so afterwards every written column of those profiles' posts is
compared between them: the faster code must write the same scores. Without `--before-db`
only the working tree's code runs, into the one copy: a deployed server serves one catalog,
and two 8.6 GB copies do not fit together in the benchmark server's shared buffers (each
evicts the other's index pages, so the comparison run reads from disk what a sized server
keeps in memory). The timed part is the
transaction (ingest and commit); making the snapshots (the simulated platform) is not.

`searchable` starts a server with an in-process worker on the copy, asks it to crawl a
handle the catalog has never seen (`POST /crawls`, the simulated source) and polls profile
search for it: the time from the job's start to the first answer that finds it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search import _account, _free_port, _machine, _pct, _start_server  # noqa: E402
from bench.search_world import NOW, SEED  # noqa: E402

BEFORE = "308f0f5"  # main before issue 13's ingest work
BATCH = 100
# What a crawl writes to a post, compared between the two copies (ids of new posts differ).
COMPARED = ", ".join(f"p.{c}" for c in (
    "views", "likes", "comments", "shares", "engagement_rate", "caption", "url",
    "stats_updated_at", "first_seen_at", "deleted_at", "owner_followers", "velocity",
    "age_score", "baselines",
    *(f"{m}_{w}" for m in ("score", "mscore") for w in (
        "one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year",
        "all_time")),
))


def _url(admin: str, database: str) -> tuple[str, str]:
    from sors.kit.db import to_async_url, to_plain_url

    if database in ("sors_bench", "sors_bench_m"):
        raise SystemExit(f"refusing to write into {database}: work on a copy")
    base, _, query = admin.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + database + ("?" + query if query else "")
    return to_async_url(url), to_plain_url(url)


def _module_at(rev: str, path: str, name: str) -> types.ModuleType:
    src = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType(name)
    mod.__file__ = f"{rev}:{path}"
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    return mod


def _ingest_before(rev: str) -> Any:
    """`ingest_crawls` as it was at `rev`, with the scoring module of that revision."""
    old_scoring = _module_at(rev, "sors/catalog/ingest/scoring.py", "scoring_before")
    current = sys.modules["sors.catalog.ingest.scoring"]
    sys.modules["sors.catalog.ingest.scoring"] = old_scoring
    try:
        return _module_at(rev, "sors/catalog/ingest/service.py", "ingest_before").ingest_crawls
    finally:
        sys.modules["sors.catalog.ingest.scoring"] = current


def _handles(
    plain: str, rounds: int, at: datetime
) -> tuple[list[list[tuple[str, str]]], list[list[tuple[str, str]]]]:
    """Per round, 100 handles to re-crawl and 100 the catalog has never seen."""
    from sors.platforms.sim.world import SimWorld

    with psycopg.connect(plain) as conn:
        known = conn.execute("SELECT platform, handle FROM profiles WHERE is_active ORDER BY id")\
            .fetchall()
        # Profiles an earlier run re-crawled already are left out: a re-crawl moves the clock.
        # So are the copies bench/replicate.py makes (handles ending `.c1`-`.c9`): the
        # simulated world would answer for such a handle with another account's posts.
        due = conn.execute("SELECT platform, handle FROM profiles WHERE is_active"
                           " AND last_crawled_at < %s AND handle !~ '[.]c[1-9]$' ORDER BY id",
                           (at,)).fetchall()
    world = SimWorld(SEED)
    taken = {(p, h) for p, h in known}
    # The build sampled its handles with this seed; later ones in a larger sample are new.
    fresh = [ph for ph in world.sample_handles(len(known) + 3 * BATCH * rounds)
             if ph not in taken and world.is_stable_handle(*ph)]
    step = max(1, len(due) // (rounds * BATCH))
    recrawl = [list(due[i * step * BATCH::step][:BATCH]) for i in range(rounds)]
    first = [fresh[i * BATCH:(i + 1) * BATCH] for i in range(rounds)]
    return recrawl, first


async def _timed(sessions: Any, ingest: Any, snaps: list[Any]) -> float:
    started = time.perf_counter()
    async with sessions() as s, s.begin():
        await ingest(s, snaps)
    return time.perf_counter() - started


def _compare(before: str, after: str, keys: list[tuple[str, str]]) -> int:
    """Posts of these profiles whose written columns differ between the copies."""
    sql = (f"SELECT p.platform, p.platform_post_id, {COMPARED} FROM posts p "
           "JOIN profiles pr ON pr.id = p.profile_id "
           "WHERE (pr.platform, pr.handle) IN (SELECT * FROM unnest(%s::text[], %s::text[])) "
           "ORDER BY 1, 2")
    args = ([k[0] for k in keys], [k[1] for k in keys])
    with psycopg.connect(before) as a, psycopg.connect(after) as b:
        ra, rb = a.execute(sql, args).fetchall(), b.execute(sql, args).fetchall()
    if len(ra) != len(rb):
        return abs(len(ra) - len(rb)) + sum(x != y for x, y in zip(ra, rb, strict=False))
    return sum(x != y for x, y in zip(ra, rb, strict=True))


def run(args: argparse.Namespace) -> None:
    from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

    from sors.catalog.ingest.service import ingest_crawls
    from sors.platforms.sim.world import SimWorld

    compare = args.before_db is not None
    old_ingest = _ingest_before(args.before) if compare else None
    url_b, plain_b = _url(args.admin_url, args.after_db)
    url_a, plain_a = _url(args.admin_url, args.before_db) if compare else (url_b, plain_b)
    at = NOW + timedelta(hours=args.advance_hours)
    streams = sorted({int(n) for n in args.streams.split(",")})
    # Per round, one batch per stream of each stream count (each batch its own profiles).
    per_round = sum(streams)
    recrawl, first = _handles(plain_b, args.rounds * per_round, at)
    if args.prewarm:
        for plain in dict.fromkeys((plain_a, plain_b)):
            _prewarm_write_path(plain)
    settings = _server_settings(plain_b)
    world = SimWorld(SEED)
    times: dict[tuple[str, int, str], list[float]] = {}
    posts: dict[tuple[str, int], int] = {}
    load: list[float] = []
    differ = 0

    async def go() -> None:
        nonlocal differ
        top = max(streams)
        code = {
            "after": (async_sessionmaker(create_async_engine(url_b, pool_size=top),
                                         expire_on_commit=False), ingest_crawls),
        }
        if compare:
            code["before"] = (async_sessionmaker(create_async_engine(url_a, pool_size=top),
                                                 expire_on_commit=False), old_ingest)
        for r in range(args.rounds):
            for kind, batches in (("re-crawl", recrawl), ("first crawl", first)):
                taken = r * per_round
                for n in streams:
                    group = batches[taken:taken + n]
                    taken += n
                    snaps = [[world.crawl(p, h, at) for p, h in hs]  # type: ignore[arg-type]
                             for hs in group]
                    count = sum(len(s.posts) for b in snaps for s in b)
                    posts[(kind, n)] = posts.get((kind, n), 0) + count
                    order = (("before", "after") if r % 2 == 0 else ("after", "before")) \
                        if compare else ("after",)
                    load.append(os.getloadavg()[0])
                    for label in order:
                        sessions, ingest = code[label]
                        # N crawl workers at once, as deployed: one transaction each.
                        started = time.perf_counter()
                        await asyncio.gather(*(_timed(sessions, ingest, b) for b in snaps))
                        t = time.perf_counter() - started
                        times.setdefault((kind, n, label), []).append(t)
                        print(f"round {r + 1} {kind:11s} {n} stream(s) {label:6s} "
                              f"{count:,} posts {t:6.2f} s", flush=True)
                    for hs in group if compare else ():
                        differ += _compare(plain_a, plain_b, hs)

    asyncio.run(go())
    lines = [
        f"### {args.label} ({datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC)",
        "",
        f"- Machine: {_machine()}; 1-minute load average {min(load):.1f}-{max(load):.1f} "
        "during the run (a machine shared with other engineers' work).",
        f"- {'Copies' if compare else 'A copy'} of the 1M-post benchmark database; "
        f"{args.rounds} rounds, each with, per "
        f"stream count N in {streams}, N batches of {BATCH} re-crawls "
        f"({args.advance_hours:g} h after the last crawl) and N of {BATCH} first crawls "
        "(other profiles in each batch), "
        + ("ingested by both codes in alternation (same snapshots)" if compare
           else f"ingested by the working tree's code only (`{args.after_db}`, no `--before-db`)")
        + "; N streams are N transactions at once, as N crawl workers run them (here "
        "one Python process: the streams' Python work shares one core); each transaction "
        "commits.",
        (f"- Posts whose written columns differ between the two copies afterwards: {differ}."
         if compare else "- No value comparison in this mode (tests/breakouts checks the "
         "values against the reference implementation)."),
        f"- Server: {settings}; "
        + (f"{'both copies' if compare else 'the copy'}: posts, post_stats, profiles and their "
           "indexes prewarmed into shared buffers first (`--prewarm`)." if args.prewarm
           else "no prewarm."),
        "",
        "| batch | streams | code | posts per round | seconds per round p50 / max | posts/s |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for kind in ("re-crawl", "first crawl"):
        for n in streams:
            for label, name in ((("before", f"before ({args.before})"),) if compare else ()) \
                    + (("after", "after"),):
                xs = times[(kind, n, label)]
                total = posts[(kind, n)]
                lines.append(f"| {kind} | {n} | {name} | {total / args.rounds:,.0f} | "
                             f"{statistics.median(xs):.2f} / {max(xs):.2f} | "
                             f"{total / sum(xs):,.0f} |")
    print("\n".join(lines))
    if args.write:
        _append(Path(args.write), lines)


def _prewarm_write_path(plain: str) -> None:
    """What a crawl reads and writes, in shared buffers, as on a server that has been ingesting
    for a while (the pages a batch touches are otherwise read from disk: on this VM the OS
    page cache does not keep a 5 GB database)."""
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        conn.execute(
            "SELECT pg_prewarm(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't')"
            " AND (c.relname IN ('posts', 'post_stats', 'profiles', 'profile_categories',"
            "                    'post_ideas')"
            "      OR c.relname LIKE 'ix_post%' OR c.relname LIKE 'ix_profile%'"
            "      OR c.relname LIKE 'pk_post%' OR c.relname LIKE 'uq_post%'"
            "      OR c.relname LIKE 'pk_profile%')"
        ).fetchall()


def _server_settings(plain: str) -> str:
    names = ("shared_buffers", "wal_buffers", "max_wal_size", "checkpoint_timeout",
             "wal_compression")
    with psycopg.connect(plain) as conn:
        values = [conn.execute(f"SHOW {n}").fetchone()[0] for n in names]  # type: ignore[index]
    return ", ".join(f"`{n}` {v}" for n, v in zip(names, values, strict=True))


def _append(path: Path, lines: list[str]) -> None:
    text = path.read_text()
    marker = "<!-- bench/ingest.py appends runs below -->"
    if marker not in text:
        text = text.rstrip() + f"\n\n{marker}\n"
    head, _, tail = text.partition(marker)
    # Runs go right under the marker's section, before whichever section follows it.
    nxt = tail.find("\n## ")
    body, rest = (tail, "") if nxt < 0 else (tail[:nxt], tail[nxt:])
    path.write_text(head + marker + body.rstrip() + "\n\n" + "\n".join(lines) + "\n" + rest)
    print(f"wrote {path}")


def app_with_worker() -> Any:
    """The server `searchable` starts: the API with a job worker in its process."""
    from sors.app import create_app
    from sors.config import Settings

    return create_app(Settings(), roles=("worker",))


def searchable(args: argparse.Namespace) -> None:
    import httpx

    from sors.platforms.sim.world import SimWorld

    url, plain = _url(args.admin_url, args.database)
    key = asyncio.run(_account(url, args.data_dir))
    with psycopg.connect(plain) as conn:
        known = {tuple(r) for r in conn.execute("SELECT platform, handle FROM profiles")}
    world = SimWorld(SEED)
    candidates = [ph for ph in world.sample_handles(len(known) + 2000)
                  if ph not in known and world.is_stable_handle(*ph)]
    port = _free_port()
    server = _start_server(url, args.data_dir, port, factory="bench.ingest:app_with_worker")
    results: list[tuple[str, int, float, float]] = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1", timeout=60,
                          headers={"Authorization": f"Bearer {key}"}) as client:
            picked = 0
            for platform, handle in candidates:
                if picked >= args.tries:
                    break
                if len(world.crawl(platform, handle, NOW).posts) < 60:  # type: ignore[arg-type]
                    continue
                picked += 1
                posted = time.perf_counter()
                r = client.post("/crawls", json={"platform": platform, "handle": handle})
                assert r.status_code in (200, 202), r.text
                while True:
                    found = client.post("/search/profiles", json={"query": handle}).json()
                    if any(p["handle"] == handle and p["platform"] == platform
                           for p in found["results"]):
                        seen = time.perf_counter()
                        break
                    if time.perf_counter() - posted > 120:
                        raise SystemExit(f"@{handle} not searchable after 120 s")
                    time.sleep(0.02)
                with psycopg.connect(plain, autocommit=True) as conn:
                    db_now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
                    finished = None
                    while finished is None:  # the job records its end just after the commit
                        started, finished, n = conn.execute(
                            "SELECT started_at, finished_at, (result->>'postsSeen')::int "
                            "FROM jobs WHERE payload->>'handle' = %s ORDER BY created_at DESC"
                            " LIMIT 1", (handle,)).fetchone()  # type: ignore[misc]
                        time.sleep(0.05)
                # The job's start on the database clock, carried over to this process's clock.
                waited = (started - _posted_at(db_now, posted)).total_seconds()
                since_start = (seen - posted) - max(0.0, waited)
                results.append((handle, n, seen - posted, since_start))
                print(f"@{handle}: {n} posts, searchable {seen - posted:.2f} s after the POST, "
                      f"{since_start:.2f} s after the job started "
                      f"(job ran {(finished - started).total_seconds():.2f} s)", flush=True)
    finally:
        server.terminate()
        server.wait(10)
    print(f"median {statistics.median(r[3] for r in results):.2f} s after the job started, "
          f"max {max(r[3] for r in results):.2f} s; "
          f"p95 from the POST {_pct([r[2] for r in results], 0.95):.2f} s; "
          f"load {os.getloadavg()[0]:.1f}")


def _posted_at(db_now: datetime, posted: float) -> datetime:
    """The POST's moment on the database clock (db_now was read just now)."""
    return db_now - timedelta(seconds=time.perf_counter() - posted)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("run", "searchable"))
    ap.add_argument("--admin-url", required=True)
    ap.add_argument("--before-db")
    ap.add_argument("--after-db")
    ap.add_argument("--database", help="searchable: the copy to crawl into")
    ap.add_argument("--before", default=BEFORE, help="git revision of the 'before' code")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--streams", default="1",
                    help="concurrent batches, e.g. 1,2: each count is run every round")
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--advance-hours", type=float, default=24.0)
    ap.add_argument("--data-dir", default=".sors-bench")
    ap.add_argument("--prewarm", action="store_true",
                    help="load both copies' catalog tables and indexes into shared buffers first")
    ap.add_argument("--write")
    ap.add_argument("--label", default="Ingest at 1M posts")
    args = ap.parse_args()
    if args.command == "run":
        run(args)
    else:
        searchable(args)


if __name__ == "__main__":
    main()
