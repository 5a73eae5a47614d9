"""Console pages vs their API calls: what the HTML layer adds, page by page.

    python bench/console_vs_api.py [--admin-url URL] [--profiles 300] [--rounds 100]
                                   [--write docs/PERFORMANCE.md]

Builds a throwaway database (`sors_bench_console_<pid>`) on the given PostgreSQL server,
seeds a simulated world through the real seed path, starts `sors api` on a loopback port,
signs a console session in, and then alternates (the order flipping each round) each console
page with the API call(s) that page makes, sent by a plain client over a keep-alive
connection. The difference is what the console costs: its session check, the in-process
dispatch into the same routes, the template and the SVG. Prints p50/p95 per page and the p50
difference; `--write` appends the table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from mcp_vs_http import _pct, _prepare, _start  # noqa: E402

SEARCH = {"platforms": ["tiktok"], "minOutlierScore": 1.5}
Call = Callable[[], Awaitable[None]]


async def _pairs(api: httpx.AsyncClient, page: httpx.AsyncClient) -> dict[str, tuple[Call, Call]]:
    post = (await api.post("/api/v1/search/content", json=SEARCH)).json()["results"][0]
    pid, prof = post["id"], post["profile_id"]

    def get(client: httpx.AsyncClient, *paths: str) -> Call:
        async def run() -> None:
            for p in paths:
                r = await client.get(p)
                assert r.status_code == 200, (p, r.status_code, r.text[:200])
        return run

    async def search_api() -> None:
        r = await api.post("/api/v1/search/content", json=SEARCH)
        assert r.status_code == 200

    async def trends_api() -> None:
        assert (await api.post("/api/v1/trends", json={"query": "the"})).status_code == 200

    return {
        "outliers (search)": (get(page, "/app/outliers?platforms=tiktok&minOutlierScore=1.5"),
                              search_api),
        "post": (get(page, f"/app/posts/{pid}"), get(api, f"/api/v1/posts/{pid}")),
        "post + growth chart": (get(page, f"/app/posts/{pid}?chart=1"),
                                get(api, f"/api/v1/posts/{pid}", f"/api/v1/posts/{pid}/history")),
        "profile + scatter": (get(page, f"/app/profiles/{prof}"),
                              get(api, f"/api/v1/profiles/{prof}", "/api/v1/tracking")),
        "trends": (get(page, "/app/trends?query=the"), trends_api),
        "trending": (get(page, "/app/trending"), get(api, "/api/v1/trending")),
        "tracking": (get(page, "/app/tracking"), get(api, "/api/v1/tracking")),
        "alerts": (get(page, "/app/alerts"), get(api, "/api/v1/alerts")),
        "credits": (get(page, "/app/credits"),
                    get(api, "/api/v1/credits", "/api/v1/credits/ledger?limit=25")),
    }


async def _measure(base: str, key: str, rounds: int) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    async with (
        httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {key}"},
                          timeout=60) as api,
        httpx.AsyncClient(base_url=base, timeout=60) as page,
    ):
        r = await page.post("/app/signin", data={"api_key": key, "next": "/app/outliers"})
        assert r.status_code == 303 and page.cookies.get("sors_console"), r.text
        pairs = await _pairs(api, page)
        for name, (console, direct) in pairs.items():
            times: dict[str, list[float]] = {"page": [], "api": []}
            for _ in range(5):
                await console()
                await direct()
            for i in range(rounds):
                order = [("page", console), ("api", direct)]
                for which, fn in order if i % 2 == 0 else order[::-1]:
                    started = time.perf_counter()
                    await fn()
                    times[which].append((time.perf_counter() - started) * 1000)
            out[name] = times
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:55432/postgres")
    parser.add_argument("--profiles", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--write", default=None, help="append the result to this markdown file")
    args = parser.parse_args()

    from sors.kit import migrate
    from sors.kit.db import to_async_url
    from tests.factories.cluster import free_port

    name = f"sors_bench_console_{os.getpid()}"
    with psycopg.connect(args.admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base_url, _, query = args.admin_url.partition("?")
    url = to_async_url(base_url.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else ""))
    data_dir = tempfile.mkdtemp(prefix="sors-bench-console-")
    proc = None
    try:
        migrate.upgrade(url)
        key = asyncio.run(_prepare(url, data_dir, args.profiles))
        port = free_port()
        proc = _start(url, data_dir, port)
        results = asyncio.run(_measure(f"http://127.0.0.1:{port}", key, args.rounds))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)
        with psycopg.connect(args.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    lines = [
        f"\n### Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {args.rounds} alternating pairs per "
        f"page, {args.profiles} simulated profiles, {platform.machine()} {os.cpu_count()} "
        "cores (shared with other engineers' work)\n",
        "| page | its API call(s) | page p50 / p95 (ms) | API p50 / p95 (ms) "
        "| p50 difference (ms) |",
        "|---|---|---:|---:|---:|",
    ]
    calls = {"outliers (search)": "POST /search/content", "post": "GET /posts/{id}",
             "post + growth chart": "GET /posts/{id}, GET /posts/{id}/history",
             "profile + scatter": "GET /profiles/{id}, GET /tracking",
             "trends": "POST /trends", "trending": "GET /trending", "tracking": "GET /tracking",
             "alerts": "GET /alerts", "credits": "GET /credits, GET /credits/ledger"}
    for page_name, t in results.items():
        pp50, pp95 = statistics.median(t["page"]), _pct(t["page"], 0.95)
        ap50, ap95 = statistics.median(t["api"]), _pct(t["api"], 0.95)
        print(f"{page_name:22s} page {pp50:6.1f}/{pp95:6.1f}  api {ap50:6.1f}/{ap95:6.1f}  "
              f"diff {pp50 - ap50:+5.1f} ms")
        lines.append(f"| {page_name} | {calls[page_name]} | {pp50:.1f} / {pp95:.1f} | "
                     f"{ap50:.1f} / {ap95:.1f} | {pp50 - ap50:+.1f} |")
    if args.write:
        with open(args.write, "a") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
