"""How the people's commands show API answers: rich tables that fit the terminal (80
columns included: long text is cut with an ellipsis, never wrapped), or JSON, or CSV.

Pure functions from the API's records to rows, so formatting is tested without a server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from rich.cells import cell_len
from rich.table import Table


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def pick_format(as_json: bool, as_csv: bool) -> Format:
    if as_json and as_csv:
        raise ValueError("--json and --csv: choose one")
    return Format.json if as_json else Format.csv if as_csv else Format.table


def compact(n: float | None) -> str:
    """48,612 → 48.6K; 1,250,000 → 1.2M; None → -."""
    if n is None:
        return "-"
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(n) >= size:
            return f"{n / size:.1f}".removesuffix(".0") + suffix
    return f"{n:.0f}" if float(n).is_integer() else f"{n:.1f}"


def times(score: float | None) -> str:
    """An outlier score as a multiple of the baseline: 22.2×."""
    if score is None:
        return "-"
    return f"{score:.1f}×" if score < 100 else f"{score:.0f}×"


def day(ts: str | None) -> str:
    """An ISO 8601 time as its date (the list's resolution)."""
    return ts[:10] if ts else "-"


def minute(ts: str | None) -> str:
    """An ISO 8601 time to the minute, in UTC: 2026-09-25 10:04."""
    if not ts:
        return "-"
    try:
        at = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    return at.strftime("%Y-%m-%d %H:%M")


def one_line(text: str | None) -> str:
    return " ".join((text or "").split())


@dataclass(frozen=True)
class Col:
    """A column: fixed ones are as wide as their widest cell (up to `cap`); `flex` ones share
    what is left, cut with an ellipsis (or wrapped), and are dropped below `flex` cells;
    `optional` ones go first when the row does not fit."""

    header: str
    right: bool = False
    cap: int | None = None
    flex: int = 0
    optional: bool = False
    wrap: bool = False  # a flex column whose text wraps instead of being cut (a summary's values)


GAP = 2  # between two columns (box=None, no edge padding)


def fit(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> list[tuple[int, int]]:
    """The (index, width) of the columns that fit in `width` terminal cells."""
    need = [max([cell_len(c.header)] + [cell_len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    fixed = {
        i: min(n, c.cap or n)
        for i, (c, n) in enumerate(zip(cols, need, strict=True))
        if not c.flex
    }
    keep = list(range(len(cols)))
    while True:
        flex = [i for i in keep if cols[i].flex]
        room = width - sum(fixed[i] for i in keep if not cols[i].flex) - GAP * (len(keep) - 1)
        share = room // len(flex) if flex else 0
        if not flex or share >= min(cols[i].flex for i in flex):
            return [(i, fixed[i] if i in fixed else min(need[i], share)) for i in keep]
        optional = [i for i in keep if cols[i].optional]
        keep.remove(optional[0] if optional else flex[-1])


def table(
    title: str | None, cols: Sequence[Col], rows: Sequence[Sequence[Any]], width: int
) -> Table:
    """A table that fits `width` cells: cells never wrap; text that does not fit is cut with
    an ellipsis, and optional columns are left out rather than squeezed."""
    cells = [[str(c) for c in row] for row in rows]
    t = Table(title=title, title_justify="left", box=None, pad_edge=False, header_style="bold",
              show_edge=False)
    chosen = fit(cols, cells, width)
    for i, w in chosen:
        wrap = cols[i].wrap
        t.add_column(cols[i].header, width=w, no_wrap=not wrap,
                     overflow="fold" if wrap else "ellipsis",
                     justify="right" if cols[i].right else "left")
    for row in cells:
        t.add_row(*(row[i] for i, _ in chosen))
    return t


def posts_table(
    posts: Sequence[Mapping[str, Any]], width: int, *, title: str | None = None
) -> Table:
    """Search results (or a profile's recent posts), best first: the score the search used,
    views, whose (as `sors profile` takes it), when, the caption cut to what fits, the id."""
    rows = [
        (times(p.get("score", _best(p))), compact(p.get("views")),
         f"{p.get('platform', '')}:@{p.get('handle', '')}", day(p.get("published_at")),
         one_line(p.get("caption")), p.get("id", ""))
        for p in posts
    ]
    return table(title, [
        Col("score", right=True), Col("views", right=True), Col("creator", cap=26),
        Col("published", optional=True), Col("caption", flex=12), Col("id"),
    ], rows, width)


def _best(post: Mapping[str, Any]) -> float | None:
    return (post.get("outlier_scores") or {}).get("three_months")


def profiles_table(
    profiles: Sequence[Mapping[str, Any]], width: int, *, title: str | None = None
) -> Table:
    rows = [
        (f"{p.get('platform', '')}:@{p.get('handle', '')}", one_line(p.get("display_name")),
         compact(p.get("follower_count")),
         compact(((p.get("averages") or {}).get("three_months") or {}).get("views")),
         ", ".join(c["id"] for c in p.get("categories") or []), p.get("id", ""))
        for p in profiles
    ]
    return table(title, [
        Col("profile", cap=30), Col("name", flex=8, optional=True), Col("followers", right=True),
        Col("avg views", right=True), Col("niches", flex=10), Col("id"),
    ], rows, width)


def ledger_table(entries: Sequence[Mapping[str, Any]], width: int) -> Table:
    rows = [
        (minute(e.get("createdAt")), e.get("kind", ""), f"{e.get('credits', 0):+d}",
         e.get("balanceAfter", ""), _what(e))
        for e in entries
    ]
    return table("ledger, newest first", [
        Col("when (UTC)"), Col("kind"), Col("credits", right=True), Col("balance", right=True),
        Col("for", flex=8),
    ], rows, width)


def _what(entry: Mapping[str, Any]) -> str:
    """The skill once (a charge's reason repeats it), or the reason."""
    skill, reason = entry.get("skill"), entry.get("reason")
    if skill and reason and reason != skill:
        return f"{skill} — {reason}"
    return skill or reason or ""


def facts(pairs: Sequence[tuple[str, Any]], width: int) -> Table:
    """Labels and values (a post's or profile's summary); long values wrap, whole."""
    t = table(None, [Col(""), Col("", flex=10, wrap=True)],
              [(k, "-" if v is None or v == "" else v) for k, v in pairs], width)
    t.show_header = False
    return t


def post_facts(post: Mapping[str, Any], width: int) -> Table:
    owner = post.get("profile") or {}
    scores = post.get("outlier_scores") or {}
    robust = (post.get("robust_scores") or {}).get("three_months") or {}
    return facts([
        ("post", post.get("id")), ("url", post.get("url")),
        ("creator", f"@{owner.get('handle', '')} on {post.get('platform', '')} "
                    f"({compact(owner.get('follower_count'))} followers)"),
        ("published", minute(post.get("published_at"))),
        ("type", post.get("content_type")),
        ("views", compact(post.get("views"))),
        ("likes / comments / shares", " / ".join(
            compact(post.get(k)) for k in ("likes", "comments", "shares"))),
        ("engagement", _percent(post.get("engagement_rate"))),
        ("outlier score 3 months", f"{times(scores.get('three_months'))} (mean), "
                                   f"{times(robust.get('score'))} (median)"),
        ("outlier score 1 year", times(scores.get("one_year"))),
        ("caption", one_line(post.get("caption"))),
    ], width)


def profile_facts(profile: Mapping[str, Any], width: int) -> Table:
    averages = profile.get("averages") or {}
    three = averages.get("three_months") or {}
    return facts([
        ("profile", profile.get("id")), ("url", profile.get("url")),
        ("handle", f"@{profile.get('handle', '')} on {profile.get('platform', '')}"),
        ("name", one_line(profile.get("display_name"))),
        ("followers", compact(profile.get("follower_count"))),
        ("avg views 3 months", _average(three)),
        ("niches", ", ".join(c["id"] for c in profile.get("categories") or [])),
        ("last crawled", minute(profile.get("last_crawled_at"))),
        ("bio", one_line(profile.get("bio"))),
    ], width)


def _average(window: Mapping[str, Any]) -> str:
    """A window's average views as people read it: never "- over 0 posts"."""
    n, young = window.get("post_count") or 0, window.get("young_post_count") or 0
    if n == 0:
        return f"none yet ({young} too young to count)" if young else "no videos yet"
    if window.get("views") is None:
        return f"{n} posts with views: too few for an average"
    thin = " (thin baseline)" if window.get("quality") == "thin" else ""
    return f"{compact(window.get('views'))} over {n} posts{thin}"


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def to_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


def to_csv(records: Sequence[Mapping[str, Any]], kind: str) -> str:
    """Records as CSV in the columns of the API's own CSV (`Accept: text/csv`): `post`
    (a post record's owner flattened in, as in search results), `profile`, or `ledger`."""
    from sors.catalog.search.csv_export import POST_COLUMNS, PROFILE_COLUMNS, render

    if kind == "post":
        return render([flat_post(r) for r in records], POST_COLUMNS)
    if kind == "profile":
        return render(records, PROFILE_COLUMNS)
    return render(records, [(k, _getter(k)) for k in LEDGER_COLUMNS])


def _getter(key: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda r: r.get(key)


LEDGER_COLUMNS = ("entryId", "createdAt", "kind", "credits", "balanceAfter", "skill", "reason",
                  "requestId", "jobRef", "refundOf", "keyId", "memberId")


def flat_post(post: Mapping[str, Any]) -> dict[str, object]:
    """A post record (`profile` nested) in the flat shape of search results."""
    owner = post.get("profile") or {}
    return {**post, "profile_id": owner.get("id"), "handle": owner.get("handle"),
            "display_name": owner.get("display_name"),
            "follower_count": owner.get("follower_count"), "is_active": owner.get("is_active"),
            "score": (post.get("outlier_scores") or {}).get("three_months")}
