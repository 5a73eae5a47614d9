"""A shared board as a web page a client can read on a phone: what the share link answers a
browser (`Accept: text/html`). Read-only and key-less like the JSON: the board's name, each
post with its thumbnail, its score explained ("119× = 37M views ÷ 310.6K average of 18
posts"), the note and the saved analysis; each profile with its numbers and note. Nothing of
the account beyond the board: no email, no account or board id, no other board.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.ext.asyncio import AsyncSession

from sors.boards.schemas import SharedBoard
from sors.catalog.records import repository as catalog_repo
from sors.catalog.records import service as catalog
from sors.catalog.records.analysis_schemas import Analysis

WINDOW = "three_months"  # the score the page explains (the API's default window)
HOOK_SOURCES = {"speech": "spoken", "on_screen_text": "on screen", "caption": "caption"}


def wants_html(accept: str | None) -> bool:
    """A browser's request: text/html named, and preferred to JSON (by its q-value)."""
    if not accept:
        return False
    best: dict[str, float] = {}
    for part in accept.split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for p in params:
            if p.startswith("q="):
                try:
                    q = float(p[2:])
                except ValueError:
                    q = 0.0
        best[kind.lower()] = max(q, best.get(kind.lower(), 0.0))
    html = max(best.get("text/html", 0.0), best.get("application/xhtml+xml", 0.0))
    return html > 0 and html >= best.get("application/json", 0.0)


def compact(n: Any) -> str:
    if n is None:
        return "—"
    x = float(n)
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(x) >= size:
            return f"{x / size:.1f}".rstrip("0").rstrip(".") + unit
    return f"{x:,.0f}"


def times(v: Any) -> str:
    if v is None:
        return "—"
    return (f"{float(v):.0f}" if float(v) >= 100 else f"{float(v):.1f}".rstrip("0")
            .rstrip(".")) + "×"


def day(iso: str | None) -> str:
    if not iso:
        return "—"
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)
    return f"{at:%b} {at.day}, {at:%Y}"


def image_src(post: Mapping[str, Any], simulated: bool) -> str | None:
    """The platform's https thumbnail, or in simulation the frame the simulated world renders
    (`/sim/thumbs/…`); None draws a placeholder."""
    url = post.get("thumbnail_url")
    if url and urlsplit(url).scheme == "https" and not (
            urlsplit(url).hostname or "").endswith(".invalid"):
        return str(url)
    return f"/sim/thumbs/{post['id']}.jpg" if simulated and url else None


def post_link(post: Mapping[str, Any], simulated: bool) -> str | None:
    return f"/sim/posts/{post['id']}" if simulated else post.get("url")


def score_explained(post: Mapping[str, Any], profile: Mapping[str, Any] | None) -> str | None:
    """"119× = 37M views ÷ 310.6K average of 18 posts" (the three-month window)."""
    score = (post.get("outlier_scores") or {}).get(WINDOW)
    views = post.get("views")
    if score is None or not views:
        return None
    avg = ((profile or {}).get("averages") or {}).get(WINDOW) or {}
    mean, count = avg.get("views"), avg.get("post_count")
    if not mean:
        mean, count = views / score, None
    of = f" of {count:,} {'post' if count == 1 else 'posts'}" if count else ""
    return (f"{times(score)} = {compact(views)} views ÷ {compact(mean)} average{of} "
            f"(the creator's last three months)")


@cache
def env() -> Environment:
    e = Environment(loader=PackageLoader("sors.boards", "templates"),
                    autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                    lstrip_blocks=True)
    e.filters.update(compact=compact, times=times, day=day)
    e.globals.update(hook_sources=HOOK_SOURCES)
    return e


async def render(
    session: AsyncSession, board: SharedBoard, *, simulated: bool
) -> tuple[str, str]:
    """(the page, the nonce its style carries) for the board as its service built it."""
    items = [i.model_dump(warnings=False) for i in board.items]
    post_ids = [i["post"]["id"] for i in items if i.get("post")]
    found_profiles = await catalog_repo.get_profiles(
        session, sorted({i["post"]["profile_id"] for i in items if i.get("post")}))
    profiles = {pid: dict(row) for pid, row in found_profiles.items()}
    analyses: dict[str, Analysis] = {}
    for post_id in post_ids:
        found = await catalog.analysis_for(session, post_id)
        if found is not None:
            analyses[post_id] = found
    cards = []
    for item in items:
        post = item.get("post")
        cards.append({
            "item": item,
            "image": image_src(post, simulated) if post else None,
            "link": post_link(post, simulated) if post else None,
            "score": score_explained(post, profiles.get(post["profile_id"])) if post else None,
            "analysis": analyses.get(post["id"]) if post else None,
        })
    nonce = secrets.token_urlsafe(16)
    html = env().get_template("shared_board.html.j2").render(
        board=board, cards=cards, nonce=nonce)
    return html, nonce


def error_page(title: str, message: str) -> tuple[str, str]:
    """(the page, its style's nonce) a browser gets for a link that no longer works."""
    nonce = secrets.token_urlsafe(16)
    html = env().get_template("shared_board.html.j2").render(
        board=None, cards=[], nonce=nonce, title=title, message=message)
    return html, nonce


def headers(nonce: str) -> dict[str, str]:
    """A page anyone with the link may read: never cached (a revoked link stops at once),
    never framed, no script, and the link's token never sent on as a referrer."""
    return {
        "Cache-Control": "no-store",
        "Content-Security-Policy": (
            f"default-src 'none'; img-src 'self' https: data:; style-src 'nonce-{nonce}'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Robots-Tag": "noindex",
    }
