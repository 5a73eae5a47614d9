"""`sors catalog status`: how fresh the catalog is, and what the keeper is doing."""

from __future__ import annotations

import orjson
import typer
from rich.table import Table

from sors.cli.common import console, with_runtime
from sors.kit.runtime import Runtime

catalog_app = typer.Typer(help="The continuously crawled catalog.", no_args_is_help=True)


@catalog_app.command("status")
def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Profiles per freshness tier, the share within its target age, the oldest data, the
    keeper's crawls in the last hour and its budget use, its young-post budget and coverage,
    per platform."""
    from sors.keeper.status import status as read_status

    async def run(rt: Runtime):
        # The service's clock: simulated time when the platforms are simulated.
        async with rt.database.session() as s:
            return await read_status(s, rt.now(), rt.settings)

    data = with_runtime(run)
    if as_json:
        print(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
        return
    console.print(f"catalog at {data['at']}")
    tiers = Table("platform", "tier", "target", "profiles", "within target", "oldest data",
                  title="freshness by tier")
    crawls = Table("platform", "queued", "running", "completed", "skipped", "failed",
                   "budget used / hour", "discovered waiting",
                   title="keeper crawls queued in the last hour")
    for platform, p in data["platforms"].items():
        for tier, t in p["tiers"].items():
            share = f"{t['withinTarget']} ({t['share']:.0%})" if t["share"] is not None else "-"
            tiers.add_row(platform, tier, f"{t['targetHours']:g} h", str(t["profiles"]), share,
                          t["oldest"] or "-")
        h, b = p["lastHour"], p["budget"]
        crawls.add_row(platform, str(h["pending"]), str(h["processing"]), str(h["completed"]),
                       str(h["skipped"]), str(h["failed"]),
                       f"{b['usedLastHour']} / {b['perHour']}", str(p["discoveredWaiting"]))
    young = Table("platform", "budget / tick", "refreshes last hour", "posts 24-48 h old",
                  "seen twice before 24 h", title="young posts looked at early (rising)")
    for platform, p in data["platforms"].items():
        y = p["young"]
        share = f"{y['seenTwice']} ({y['coverage']:.0%})" if y["coverage"] is not None else "-"
        young.add_row(platform, str(y["perTick"]), str(y["lastHour"]), str(y["posts"]), share)
    console.print(tiers)
    console.print(crawls)
    console.print(young)
    m = data.get("meaning")
    if m is None:
        console.print("search by meaning: unavailable (no pgvector, or no embedding model)")
        return
    ix = m["index"]
    built = (f"{ix['name']}, {ix['lists']} lists, built on {ix['builtOnVectors']} vectors"
             if ix else "none yet: every vector is compared")
    console.print(f"search by meaning ({m['model']}): {m['vectors']} vectors, "
                  f"{m['waitingToEmbed']} posts waiting to be embedded; index: {built}; "
                  f"next build at {m['nextBuildAtVectors']} vectors")
