"""How many profiles one worker keeps fresh: catalog keeper crawls on the simulated source
against a copy of the 1M-post benchmark database (docs/PERFORMANCE.md, "Keeping the catalog
fresh").

    createdb -T sors_bench sors_bench_16     # a copy: this moves its simulated clock
    SORS_DATABASE_URL=postgresql://…/sors_bench_16 sors migrate
    python bench/keeper.py --database-url postgresql://…/sors_bench_16 --profiles 150

Each round advances the copy's simulated clock by --advance-hours (so profiles come due),
lets the keeper queue --profiles refresh crawls (the most overdue first, spread over the
three platforms), and times one worker process running them until none is left, with the
given slot counts in alternation (the machine is shared: pairs, alternated, in one run).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker


async def _round(rt: Any, slots: int, advance: timedelta) -> dict[str, Any]:
    from sors.jobs.engine import Worker
    from sors.keeper import service as keeper
    from sors.kit.clock import FrozenClock
    from sors.platforms.sim import clock as sim_clock

    db = rt.database
    async with db.transaction() as s:
        now = await sim_clock.advance(s, advance)
    rt.clock = FrozenClock(now)  # the round's jobs run at the advanced time
    maker = async_sessionmaker(db.engine, expire_on_commit=False, autoflush=False)
    passes = await keeper.keep(maker, now, rt.settings)
    queued = sum(p.refreshes for p in passes.values())
    worker = Worker(rt, concurrency=slots)
    started = time.perf_counter()
    ran = sum(await asyncio.gather(*(worker.run_until_idle(timeout=3600) for _ in range(slots))))
    seconds = time.perf_counter() - started
    async with db.session() as s:
        posts = (await s.execute(text(
            "SELECT coalesce(sum((result->>'postsSeen')::int), 0) FROM jobs "
            "WHERE origin = 'catalog' AND finished_at >= now() - make_interval(secs => :s)"),
            {"s": seconds + 5})).scalar_one()
    return {"slots": slots, "queued": queued, "ran": ran, "seconds": seconds,
            "per_hour": ran / seconds * 3600, "posts": posts}


async def main_async(args: argparse.Namespace) -> None:
    from sors import wiring
    from sors.config import Settings
    from sors.kit.clock import Clock
    from sors.kit.db import Database, make_engine
    from sors.kit.runtime import Runtime

    per_platform = max(1, args.profiles // 3)
    settings = Settings(
        database_url=args.database_url, platform_source="sim", log_level="WARNING",
        catalog_discovery=False, catalog_crawls_per_hour_tiktok=per_platform,
        catalog_crawls_per_hour_instagram=per_platform,
        catalog_crawls_per_hour_youtube=per_platform,
    )
    db = Database(make_engine(settings))
    rt = Runtime(settings, Clock(), wiring.REGISTRIES, db)
    results = []
    try:
        for i in range(args.rounds):
            slots = args.slots[i % len(args.slots)]
            r = await _round(rt, slots, timedelta(hours=args.advance_hours))
            results.append(r)
            print(f"slots={r['slots']} ran {r['ran']} crawls ({r['posts']:,} posts) in "
                  f"{r['seconds']:.1f} s: {r['per_hour']:,.0f} profiles/hour", flush=True)
    finally:
        await db.dispose()
    for slots in args.slots:
        rates = [r["per_hour"] for r in results if r["slots"] == slots]
        print(f"slots={slots}: median {statistics.median(rates):,.0f} profiles/hour "
              f"over {len(rates)} rounds")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", required=True)
    p.add_argument("--profiles", type=int, default=150, help="keeper crawls per round")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--slots", type=int, nargs="+", default=[1, 4])
    p.add_argument("--advance-hours", type=float, default=25.0)
    asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
