"""Commands for people doing research: `sors search`, `sors post`, `sors profile`, `sors
credits`. Each is a call to a sors API over HTTP (sors.cli.client), paid like any other
client's; a table by default, `--json` (the API's answer as is) or `--csv`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import typer
from rich.markup import escape

from sors.cli import tables
from sors.cli.accounts import credits_app
from sors.cli.client import ApiError, BodyValue, Client, resolve
from sors.cli.common import console, fail, settings
from sors.cli.tables import Format

T = TypeVar("T")

API = typer.Option(
    None, "--api", envvar="SORS_API_URL", show_envvar=True, metavar="URL",
    help="The sors API's base URL (default: the demo of this data dir, else "
    "http://127.0.0.1:8000).",
)
KEY = typer.Option(
    None, "--key", envvar="SORS_API_KEY", show_envvar=True, metavar="KEY",
    help="API key (default: the demo's key, kept in its data dir).",
)
JSON = typer.Option(False, "--json", help="Print the API's JSON answer.")
CSV = typer.Option(False, "--csv", help="Print CSV (the columns of the API's CSV export).")


def _call(api: str | None, key: str | None, work: Callable[[Client], T]) -> T:
    s = settings()
    try:
        with Client(resolve(api, key, s.data_dir, s.base_url)) as client:
            return work(client)
    except ApiError as exc:
        fail(escape(str(exc)))
        raise  # unreachable: fail exits


def _format(as_json: bool, as_csv: bool) -> Format:
    try:
        return tables.pick_format(as_json, as_csv)
    except ValueError as exc:
        fail(str(exc), code=2)
        raise


# What the console says above the results of a search by meaning that found nothing close.
MATCH_NOTES = {"none": "No posts about this yet — closest:",
               "weak": "Nothing close to this yet; these are the nearest, loosely related:"}


def _print_json(data: Any) -> None:
    print(tables.to_json(data))


def search(
    query: str = typer.Argument(None, help="Words to look for (caption, transcript, handle)."),
    profiles: bool = typer.Option(False, "--profiles", help="Search profiles instead of posts."),
    platform: list[str] = typer.Option(
        None, "--platform", "-p", help="tiktok, instagram or youtube (repeat for several)."),
    content_type: list[str] = typer.Option(
        None, "--type", help="Content type, e.g. video, reel, short, slideshow (repeatable)."),
    category: str = typer.Option(
        None, "--category", help="A niche id from GET /api/v1/categories, e.g. food.coffee."),
    min_score: float = typer.Option(
        None, "--min-score", min=0, help="Lowest outlier score (3×: 3)."),
    min_views: float = typer.Option(None, "--min-views", min=0),
    max_followers: float = typer.Option(None, "--max-followers", min=0),
    time_frame: str = typer.Option(
        None, "--published-within",
        help="one_week, two_weeks, one_month, three_months, six_months, one_year, all_time."),
    score_window: str = typer.Option(None, "--score-window", help="The baseline's window."),
    score_method: str = typer.Option(None, "--score-method", help="mean, median, age_adjusted."),
    sort_by: str = typer.Option(
        None, "--sort", help="outlier_score, views, likes, engagement_rate, recent, velocity."),
    semantic: bool = typer.Option(
        False, "--semantic", help="By meaning: the posts nearest the words, which reorder them."),
    similar_to: str = typer.Option(None, "--similar-to", help="A post (or profile) id."),
    page: int = typer.Option(1, "--page", min=1),
    limit: int = typer.Option(20, "--limit", min=1, max=100, help="Results per page."),
    api: str = API, key: str = KEY, as_json: bool = JSON, as_csv: bool = CSV,
) -> None:
    """Search outlier posts (1 credit): posts far above their own creator's usual views,
    best first. With --profiles, search creators by handle or name (1 credit)."""
    fmt = _format(as_json, as_csv)
    asked: dict[str, BodyValue | None] = {
        "query": query, "platforms": platform or None, "similarTo": similar_to,
        "page": page, "pageSize": limit,
    }
    if profiles:
        asked["categoryId"] = category
        path = "/search/profiles"
    else:
        asked.update({
            "contentTypes": content_type or None, "categoryId": category,
            "minOutlierScore": min_score, "minViews": min_views, "maxFollowers": max_followers,
            "timeFrame": time_frame, "scoreWindow": score_window, "scoreMethod": score_method,
            "sortBy": sort_by, "semantic": semantic or None,
        })
        path = "/search/content"
    body = {k: v for k, v in asked.items() if v is not None}
    if fmt is Format.csv:
        print(_call(api, key, lambda c: c.post_csv(path, body)), end="")
        return
    found = _call(api, key, lambda c: c.post(path, body))
    if fmt is Format.json:
        _print_json(found)
        return
    results = found["results"]
    if not results:
        console.print("no matches; loosen the filters (see `sors search --help`)")
        return
    if found.get("match") in MATCH_NOTES:  # a search by meaning: how close the best is
        console.print(MATCH_NOTES[found["match"]])
    shown = f"{(page - 1) * found['pageSize'] + 1}-{(page - 1) * found['pageSize'] + len(results)}"
    total = f"{found['total']:,}" + ("+" if found.get("totalCapped") else "")
    if profiles:
        title = f"profiles {shown} of {total}"
        console.print(tables.profiles_table(results, console.width, title=title))
    else:
        title = (f"outliers {shown} of {total} (score: {found['scoreMethod']} over "
                 f"{found['scoreWindow']})")
        console.print(tables.posts_table(results, console.width, title=title))
    if found.get("hasMore"):
        console.print(f"[dim]more: --page {page + 1}[/dim]")


def post(
    post: str = typer.Argument(..., metavar="POST", help="A post id (pst_…) or the post's URL."),
    api: str = API, key: str = KEY, as_json: bool = JSON, as_csv: bool = CSV,
) -> None:
    """A post with its scores, stats and owner (1 credit)."""
    fmt = _format(as_json, as_csv)

    def work(c: Client) -> Mapping[str, Any]:
        post_id = post
        if "/" in post:  # a URL: which post of the catalog it is (free; nothing fetched)
            found = c.post("/posts/resolve", {"url": post})
            if not found["found"]:
                raise ApiError(_not_tracked(found))
            post_id = found["postId"]
        return c.get(f"/posts/{post_id}")

    record = _call(api, key, work)
    if fmt is Format.json:
        _print_json(record)
    elif fmt is Format.csv:
        print(tables.to_csv([record], "post"), end="")
    else:
        console.print(tables.post_facts(record, console.width))


def _not_tracked(found: Mapping[str, Any]) -> str:
    reason = {
        "post_not_tracked": "its creator is in the catalog, but this post is not yet",
        "profile_not_tracked": "its creator is not in the catalog",
        "unknown_owner": "the URL does not say whose post it is",
    }.get(found.get("reason", ""), found.get("reason", ""))
    return (f"the {found['platform']} post {found['platformPostId']} is not in the catalog: "
            f"{reason}; crawl its creator with POST /api/v1/crawls")


def profile(
    who: str = typer.Argument(
        ..., metavar="PROFILE",
        help="A profile id (prf_…), a profile URL, or platform:handle (tiktok:@fit.anna)."),
    platform: str = typer.Option(
        None, "--platform", "-p", help="The platform of a bare handle (@fit.anna)."),
    api: str = API, key: str = KEY, as_json: bool = JSON, as_csv: bool = CSV,
) -> None:
    """A creator with their averages, niches and 12 latest posts (1 credit; naming one by
    URL or handle searches for it first: 1 more)."""
    fmt = _format(as_json, as_csv)
    try:
        target = profile_ref(who, platform)
    except ValueError as exc:
        fail(escape(str(exc)), code=2)
        return

    def work(c: Client) -> Mapping[str, Any]:
        profile_id = target if isinstance(target, str) else _find_profile(c, *target)
        return c.get(f"/profiles/{profile_id}")

    record = _call(api, key, work)
    if fmt is Format.json:
        _print_json(record)
    elif fmt is Format.csv:
        print(tables.to_csv([record], "profile"), end="")
    else:
        console.print(tables.profile_facts(record, console.width))
        if record.get("recent_posts"):
            console.print()
            console.print(
                tables.posts_table(record["recent_posts"], console.width, title="latest posts"))


def profile_ref(who: str, platform: str | None) -> str | tuple[str, str]:
    """A profile id as is, or (platform, handle) from a URL, `platform:handle`, or a bare
    handle with --platform. ValueError says what is accepted."""
    from sors.platforms import urls
    from sors.platforms.handles import InvalidHandle, normalize_handle

    who = who.strip()
    if who.startswith("prf_"):
        return who
    if "/" in who:
        try:
            parsed = urls.parse_profile_url(who)
        except urls.UrlError as exc:
            raise ValueError(str(exc)) from exc
        return parsed.platform, parsed.handle
    named, sep, handle = who.partition(":")
    if not sep:
        named, handle = platform or "", who
    if named not in urls.PLATFORMS:
        raise ValueError(
            f"which platform is {who!r} on? Name it as tiktok:{who.lstrip('@')} or with "
            "--platform, or pass a prf_… id or the profile's URL")
    try:
        return named, normalize_handle(named, handle)
    except InvalidHandle as exc:
        raise ValueError(str(exc)) from exc


def _find_profile(c: Client, platform: str, handle: str) -> str:
    found = c.post("/search/profiles",
                   {"query": handle, "platforms": [platform], "pageSize": 100})
    for p in found["results"]:
        if p["handle"].lower() == handle.lower():
            return p["id"]
    raise ApiError(f"@{handle} on {platform} is not in the catalog; crawl it with "
                   "POST /api/v1/crawls (or `sors search --profiles` to look around)")


@credits_app.callback()
def credits(
    ctx: typer.Context,
    limit: int = typer.Option(20, "--limit", min=1, max=200, help="Ledger entries to show."),
    api: str = API, key: str = KEY, as_json: bool = JSON, as_csv: bool = CSV,
) -> None:
    """Your balance and latest ledger entries (free), over HTTP. Operators: `sors credits
    grant`."""
    if ctx.invoked_subcommand is not None:
        return
    fmt = _format(as_json, as_csv)

    def work(c: Client) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
        return c.get("/credits"), c.get("/credits/ledger", {"limit": limit})

    balance, ledger = _call(api, key, work)
    if fmt is Format.json:
        _print_json({**balance, "ledger": ledger})
    elif fmt is Format.csv:
        print(tables.to_csv(ledger["results"], "ledger"), end="")
    else:
        console.print(f"balance  [bold]{balance['balance']:,}[/bold] credits "
                      f"(${balance['balanceUsd']:,.2f})\n", highlight=False)
        if ledger["results"]:
            console.print(tables.ledger_table(ledger["results"], console.width))
        else:
            console.print("no ledger entries yet")


def register(app: typer.Typer) -> None:
    for fn in (search, post, profile):
        app.command(fn.__name__)(fn)
