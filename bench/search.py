"""Search benchmark: a world of >= 1,000,000 posts, 20 realistic searches, HTTP vs direct SQL.

    python bench/search.py build [--posts 1000000] [--jobs 2] [--real-ingest]
    python bench/search.py run [--rounds 15] [--write docs/PERFORMANCE.md --label "…"]

`build` (bench/search_world.py) makes a separate database (`sors_bench`, on the embedded
server in `--data-dir` or on `--admin-url`), migrates it and fills it with simulated crawls
through the real ingest code (its row mapping, score recomputation and classifier).

`run` starts a real uvicorn server (uvloop, httptools) on loopback against that database and
sends the fixed mix below over one keep-alive connection, alternating each call with the
same statements (built by the same repository code, compiled to SQL) run directly over
psycopg; it prints, and with `--write` appends to docs/PERFORMANCE.md, p50 and p95 of both.
A call's HTTP time is everything a client pays for: key lookup, rate limit, balance check,
search, the count when one is needed, the charge and its ledger row, the commit, JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_world import admin_url, build, db_url  # noqa: E402
from bench.serving import _account, _free_port, _start_server  # noqa: E402

# Twenty searches a research client would send: defaults, keywords, niches, size caps,
# recency, each sort, deeper pages and profile lookups.
MIX: list[tuple[str, dict[str, Any]]] = [
    ("/search/content", {}),
    ("/search/content", {"platforms": ["tiktok"], "minOutlierScore": 3}),
    ("/search/content", {"query": "sourdough"}),
    ("/search/content", {"query": "morning routine", "platforms": ["instagram"]}),
    ("/search/content", {"contentTypes": ["reel"], "timeFrame": "one_month"}),
    ("/search/content", {"contentTypes": ["short"], "sortBy": "views", "pageSize": 50}),
    ("/search/content", {"maxFollowers": 50000, "minOutlierScore": 5}),
    ("/search/content", {"timeFrame": "one_week", "scoreWindow": "one_month"}),
    ("/search/content", {"sortBy": "recent", "platforms": ["youtube"]}),
    ("/search/content", {"sortBy": "engagement_rate", "minViews": 100000}),
    ("/search/content", {"sortBy": "likes", "timeFrame": "three_months", "page": 3}),
    ("/search/content", {"query": "budget", "minOutlierScore": 2, "timeFrame": "six_months"}),
    ("/search/content", {"query": "yoga", "sortBy": "recent", "pageSize": 100}),
    ("/search/content", {"minOutlierScore": 10, "scoreWindow": "all_time", "page": 2}),
    ("/search/content", {"platforms": ["tiktok", "instagram"],
                         "contentTypes": ["slideshow", "carousel"], "minOutlierScore": 2}),
    ("/search/content", {"query": "espresso latte", "timeFrame": "one_year"}),
    ("/search/content", {"minViews": 1000000, "maxFollowers": 100000, "sortBy": "views"}),
    ("/search/profiles", {"query": "yoga"}),
    ("/search/profiles", {"categoryId": "food", "platforms": ["tiktok"]}),
    ("/search/profiles", {"query": "mia", "categoryId": "fitness.running", "page": 2}),
]  # fmt: skip


READS_PER_ROUND = 10  # GET /posts/{id} and GET /profiles/{id} per round, on sampled rows

# ---- run ------------------------------------------------------------------------------


@dataclass
class Direct:
    """The statements the service runs for one request, as SQL + params for psycopg: the
    page (from the score's index first when the sort is split at the floor, then the rest
    below it only when the page reaches there, as catalog.repository.search_posts does) and
    the count, which runs only when the page cannot tell the total."""

    page: tuple[str, dict[str, Any]]
    count: tuple[str, dict[str, Any]]
    limit: int
    offset: int
    tail: tuple[str, dict[str, Any]] | None = None
    head_count: tuple[str, dict[str, Any]] | None = None

    def run(self, conn: psycopg.Connection[Any]) -> None:
        rows = conn.execute(*self.page).fetchall()
        if self.tail is not None and len(rows) < self.limit + 1:
            if rows:
                above = self.offset + len(rows)
            elif self.offset and self.head_count is not None:
                above = conn.execute(*self.head_count).fetchone()[0]  # type: ignore[index]
            else:
                above = 0
            sql, params = self.tail
            rows += conn.execute(sql, {**params, "limit": self.limit + 1 - len(rows),
                                       "offset": max(0, self.offset - above)}).fetchall()
        if len(rows) > self.limit or (not rows and self.offset):  # as the service decides
            conn.execute(*self.count).fetchone()
        conn.commit()


def _compiled(path: str, body: dict[str, Any]) -> Direct:
    from sqlalchemy.dialects import postgresql

    from sors.catalog.records.fields import RESULT_WINDOW
    from sors.catalog.records.paging import page_window
    from sors.catalog.search import repository as repo
    from sors.catalog.search import service
    from sors.catalog.search.schemas import SearchContentIn, SearchProfilesIn

    dialect = postgresql.psycopg.dialect()  # type: ignore[attr-defined]

    def sql(stmt: Any) -> tuple[str, dict[str, Any]]:
        c = stmt.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
        return str(c), dict(c.params)

    if path == "/search/content":
        m = SearchContentIn.model_validate(body)
        f = service.content_filter(m)
        p = page_window(m.page_number, m.page_size)
        sort = m.sortBy or "outlier_score"
        split = repo._split(f, sort)
        page = repo.search_posts_stmt(f, sort_by=sort, limit=p.limit + 1, offset=p.offset,
                                      part="head" if split else None)
        count = repo.count_posts_stmt(f, cap=RESULT_WINDOW)
        if split:
            tail = repo.search_posts_stmt(f, sort_by=sort, limit=p.limit + 1, offset=0,
                                          part="tail")
            head_count = repo.count_posts_stmt(f, cap=max(0, p.offset - 1), part="head")
            return Direct(sql(page), sql(count), p.limit, p.offset, sql(tail), sql(head_count))
    else:
        pm = SearchProfilesIn.model_validate(body)
        pf = service.profiles_filter(pm)
        p = page_window(pm.page_number, pm.page_size)
        page = repo.search_profiles_stmt(pf, limit=p.limit + 1, offset=p.offset)
        count = repo.count_profiles_stmt(pf, cap=RESULT_WINDOW)
    return Direct(sql(page), sql(count), p.limit, p.offset)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def _timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def _prewarm(conn: psycopg.Connection[Any]) -> None:
    """Load the catalog tables and their indexes into shared buffers, as a server that has
    been answering for a while would have them (best effort: pg_prewarm may be missing)."""
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        conn.execute(
            "SELECT pg_prewarm(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')"
            " AND (c.relname IN ('posts', 'profiles', 'profile_categories', 'post_ideas')"
            "      OR c.relname LIKE 'ix_posts_%' OR c.relname LIKE 'ix_profile%'"
            "      OR c.relname IN ('pk_posts', 'pk_profiles', 'pk_post_ideas'))"
        ).fetchall()
        conn.commit()
    except psycopg.Error:
        conn.rollback()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from sors.kit.db import to_async_url, to_plain_url

    admin = admin_url(args)
    url = to_async_url(db_url(admin, args.database))
    key = asyncio.run(_account(url, args.data_dir))
    statements = [_compiled(path, body) for path, body in MIX]
    port = _free_port()
    server = _start_server(url, args.data_dir, port)
    http_ms: dict[int, list[float]] = {i: [] for i in range(len(MIX))}
    sql_ms: dict[int, list[float]] = {i: [] for i in range(len(MIX))}
    base_ms: list[float] = []
    profile_ms: list[float] = []
    load: list[float] = []
    headers = {"Authorization": f"Bearer {key}"}
    try:
        with (
            httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1", headers=headers) as client,
            psycopg.connect(to_plain_url(url)) as conn,
        ):
            _prewarm(conn)
            # Reads of posts and profiles spread over the catalog (not one cached row).
            reads = conn.execute(
                "SELECT id, profile_id FROM posts TABLESAMPLE SYSTEM (0.1) REPEATABLE (2026)"
                " LIMIT 200"
            ).fetchall()

            def call(path: str, body: dict[str, Any]) -> None:
                r = client.post(path, json=body)
                assert r.status_code == 200, r.text

            for _ in range(2):  # warm the pools, the caches and the plans
                for (path, body), st in zip(MIX, statements, strict=True):
                    call(path, body)
                    st.run(conn)
            # HTTP and SQL alternate request by request, so both see the same machine load.
            for _ in range(args.rounds):
                load.append(os.getloadavg()[0])
                for j in range(READS_PER_ROUND):
                    post_id, profile_id = reads[(len(base_ms) + j) % len(reads)]
                    base_ms.append(
                        _timed(lambda: client.get(f"/posts/{post_id}").raise_for_status())  # noqa: B023
                    )
                    profile_ms.append(
                        _timed(lambda: client.get(f"/profiles/{profile_id}").raise_for_status())  # noqa: B023
                    )
                for i, ((path, body), st) in enumerate(zip(MIX, statements, strict=True)):
                    http_ms[i].append(_timed(lambda: call(path, body)))  # noqa: B023
                    sql_ms[i].append(_timed(lambda: st.run(conn)))  # noqa: B023
            counts = conn.execute(
                "SELECT (SELECT count(*) FROM posts), (SELECT count(*) FROM profiles),"
                " current_setting('shared_buffers'), version()"
            ).fetchone()
    finally:
        server.terminate()
        server.wait(10)
    assert counts is not None
    all_http = [v for vs in http_ms.values() for v in vs]
    all_sql = [v for vs in sql_ms.values() for v in vs]
    result = {
        "posts": counts[0],
        "profiles": counts[1],
        "postgres": f"{counts[3].split(' on ')[0]}, shared_buffers {counts[2]}",
        "load": statistics.mean(load),
        "rounds": args.rounds,
        "http": (_pct(all_http, 0.5), _pct(all_http, 0.95)),
        "sql": (_pct(all_sql, 0.5), _pct(all_sql, 0.95)),
        "baseline": (_pct(base_ms, 0.5), _pct(base_ms, 0.95)),
        "profile": (_pct(profile_ms, 0.5), _pct(profile_ms, 0.95)),
        "per_request": [
            (
                MIX[i][0],
                MIX[i][1],
                statistics.median(http_ms[i]),
                _pct(http_ms[i], 0.95),
                statistics.median(sql_ms[i]),
                _pct(sql_ms[i], 0.95),
            )
            for i in range(len(MIX))
        ],
    }
    _print(result)
    if args.write:
        _write(Path(args.write), result, args.label)
    return result


def _print(r: dict[str, Any]) -> None:
    print(f"dataset: {r['posts']:,} posts, {r['profiles']:,} profiles; {r['postgres']}")
    print(f"{r['rounds']} rounds x {len(MIX)} requests; mean 1-min load {r['load']:.1f}")
    for name in ("http", "sql", "baseline", "profile"):
        p50, p95 = r[name]
        print(f"{name:9s} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms")
    for path, body, h50, h95, s50, s95 in r["per_request"]:
        print(f"  {h50:6.1f}/{h95:6.1f} http  {s50:6.1f}/{s95:6.1f} sql  {path} {body}")


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{cpu}, {os.cpu_count()} vCPU, {mem:.0f} GiB RAM, {platform.system()} {platform.release()}"
    )


def _write(path: Path, r: dict[str, Any], label: str) -> None:
    """Append this run under the results marker (earlier runs stay, as the history)."""
    import json

    lines = [
        f"### {label} ({datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC)",
        "",
        f"- Machine: {_machine()}; mean 1-minute load average during the run "
        f"{r['load']:.1f} (a shared machine).",
        f"- {r['postgres']}; server and database on the same host, over loopback.",
        f"- Dataset: {r['posts']:,} posts of {r['profiles']:,} profiles; {r['rounds']} rounds "
        f"of the {len(MIX)}-request mix ({r['rounds'] * len(MIX)} timed requests per side).",
        "",
        "| | p50 (ms) | p95 (ms) |",
        "|---|---:|---:|",
        f"| HTTP (full API call) | {r['http'][0]:.1f} | {r['http'][1]:.1f} |",
        f"| Direct SQL (same statements) | {r['sql'][0]:.1f} | {r['sql'][1]:.1f} |",
        f"| Floor: GET /posts/{{id}} over HTTP (1 credit, sampled posts) | "
        f"{r['baseline'][0]:.1f} | {r['baseline'][1]:.1f} |",
        f"| GET /profiles/{{id}} over HTTP (1 credit) | {r['profile'][0]:.1f} | "
        f"{r['profile'][1]:.1f} |",
        "",
        "| request | HTTP p50 / p95 | SQL p50 / p95 |",
        "|---|---:|---:|",
    ]
    for p, body, h50, h95, s50, s95 in r["per_request"]:
        lines.append(
            f"| `{p}` `{json.dumps(body)}` | {h50:.1f} / {h95:.1f} | {s50:.1f} / {s95:.1f} |"
        )
    text = path.read_text() if path.exists() else ""
    marker = "<!-- bench/search.py appends runs below -->"
    if marker not in text:
        text = text.rstrip() + f"\n\n{marker}\n"
    path.write_text(text.rstrip() + "\n\n" + "\n".join(lines) + "\n")
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("command", choices=["build", "run"])
    ap.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "sors-bench"))
    ap.add_argument("--admin-url", default=None, help="an admin URL of an external PostgreSQL")
    ap.add_argument("--database", default="sors_bench",
                    help="run: the database to search (a copy of sors_bench, say)")
    ap.add_argument("--posts", type=int, default=1_000_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--real-ingest", action="store_true", help="every batch via ingest_crawls")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--write", default=None, help="append the results to this markdown file")
    ap.add_argument("--label", default="Run", help="the heading of the appended run")
    ap.add_argument(
        "--shared-buffers",
        default="2GB",
        help="shared_buffers of the embedded server (build sets it; applies from the next start)",
    )
    args = ap.parse_args()
    build(args) if args.command == "build" else run(args)


if __name__ == "__main__":
    main()
