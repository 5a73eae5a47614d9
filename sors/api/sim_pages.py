"""The simulated platforms' own post pages, so that links in the demo lead somewhere.

A simulated post carries a platform-style URL (https://www.tiktok.com/@fit.anna/video/…) that
no real platform serves. In simulation the links sors writes into emails point here instead
(`sors.alerts.links.post_link`):
`GET /sim/posts/{postId}`, a plain page with what the platform would show (handle, caption,
counts, publish time). No key needed, like a public post; 404 outside simulation.
"""

from __future__ import annotations

from html import escape
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog import repository as catalog
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound
from sors.kit.routing import SorsRoute, get_session

router = APIRouter(route_class=SorsRoute, include_in_schema=False)
Session = Annotated[AsyncSession, Depends(get_session)]


@router.get("/sim/posts/{post_id}")
async def simulated_post_page(
    request: Request, session: Session, post_id: Annotated[str, Path(max_length=64)]
) -> HTMLResponse:
    if request.app.state.settings.platform_source != "sim":
        raise NotFound("No such page.")
    row = await catalog.get_post(session, post_id)
    if row is None:
        raise NotFound("No such post.")
    counts = ", ".join(
        f"{row[k]:,} {k}" for k in ("views", "likes", "comments", "shares") if row[k] is not None
    )
    caption = escape(row["caption"] or "")
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>@{escape(row["profile_handle"])} on simulated {escape(row["platform"])} · sors demo</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;
color:#222}} .dim{{color:#6e6e73;font-size:.9rem}}</style>
</head><body>
<p class="dim">Simulated {escape(row["platform"])} — this post exists only in the sors demo's world.</p>
<h1>@{escape(row["profile_handle"])}</h1>
<p>{caption}</p>
<p>{escape(row["content_type"])} · published {escape(isoformat(row["published_at"]) or "")}</p>
<p>{escape(counts)}</p>
<p class="dim">On the real platform its address would be {escape(row["url"])}</p>
</body></html>"""
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})
