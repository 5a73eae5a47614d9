"""The simulated platforms' own post pages, so that links in the demo lead somewhere.

A simulated post carries a platform-style URL (https://www.tiktok.com/@fit.anna/video/…) that
no real platform serves. In simulation the links sors writes into emails point here instead
(`sors.alerts.links.post_link`):
`GET /sim/posts/{postId}`, a plain page with what the platform would show (handle, caption,
counts, publish time). No key needed, like a public post; 404 outside simulation.

Likewise its thumbnail URL names a reserved `.invalid` host; `GET /sim/thumbs/{postId}.jpg`
serves the image the simulated world renders for it (the first frame of its video, its
first slide, or a YouTube title card), which the console shows on its cards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import HTMLResponse, Response

from sors.catalog.records import repository as catalog
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound
from sors.kit.routing import Context, RequestContext, SorsRoute
from sors.platforms.base import UnsupportedMedia

router = APIRouter(route_class=SorsRoute, include_in_schema=False)


PostId = Annotated[str, Path(max_length=64)]


async def _simulated(ctx: RequestContext, read: Awaitable[Any]) -> Any:
    """What `read` found of a stored post, in simulation only (404 otherwise, or when the
    post is not stored)."""
    row = await read
    if ctx.runtime.settings.platform_source != "sim" or row is None:
        raise NotFound("No such post.")
    return row


@router.get("/sim/posts/{post_id}")
async def simulated_post_page(ctx: Context, post_id: PostId) -> HTMLResponse:
    row = await _simulated(ctx, catalog.get_post(ctx.session, post_id))
    counts = ", ".join(
        f"{row[k]:,} {k}" for k in ("views", "likes", "comments", "shares") if row[k] is not None
    )
    caption = escape(row["caption"] or "")
    platform = escape(row["platform"])
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>@{escape(row["profile_handle"])} on simulated {platform} · sors demo</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;
color:#222}} .dim{{color:#6e6e73;font-size:.9rem}}</style>
</head><body>
<p class="dim">Simulated {platform} — this post exists only in the sors demo's world.</p>
<h1>@{escape(row["profile_handle"])}</h1>
<p>{caption}</p>
<p>{escape(row["content_type"])} · published {escape(isoformat(row["published_at"]) or "")}</p>
<p>{escape(counts)}</p>
<p class="dim">On the real platform its address would be {escape(row["url"])}</p>
</body></html>"""
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/sim/thumbs/{post_id}.jpg")
async def simulated_thumbnail(ctx: Context, post_id: PostId) -> Response:
    row = await _simulated(ctx, catalog.post_content(ctx.session, post_id))
    from sors.platforms.sim.adapter import thumbnail_jpeg

    try:
        # Pillow draws and encodes the card: tens of milliseconds, off the event loop.
        image = await asyncio.to_thread(
            thumbnail_jpeg, row["platform"], row["content_type"], row["extra"] or {})
    except UnsupportedMedia as exc:
        raise NotFound(str(exc)) from exc
    # The image is a pure function of the post's stored texts.
    return Response(image, media_type="image/jpeg",
                    headers={"Cache-Control": "public, max-age=86400"})
