"""In simulation, a stored post's link leads to the demo's own page for it."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from sors.alerts.links import post_link
from sors.catalog.ingest.service import ingest_crawls
from sors.cli.sim import DEMO_START
from sors.config import Settings
from sors.platforms.sim import SimWorld

pytestmark = pytest.mark.usefixtures("clean")


async def test_a_simulated_post_has_a_page(client, db, settings: Settings) -> None:
    snap = SimWorld(0).crawl("tiktok", "fit.anna", DEMO_START)
    async with db.transaction() as s:
        [profile_id] = await ingest_crawls(s, [snap])
        post_id, caption, platform_url = (await s.execute(text(
            "SELECT id, caption, url FROM posts WHERE profile_id = :p ORDER BY published_at DESC "
            "LIMIT 1"), {"p": profile_id})).one()

    link = post_link(settings, post_id, platform_url)
    assert link == f"http://testserver/sim/posts/{post_id}"
    page = await client.get(link.removeprefix("http://testserver"))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "@fit.anna" in page.text and platform_url in page.text
    assert caption.split()[0] in page.text

    missing = await client.get("/sim/posts/pst_doesnotexist")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    live = settings.with_values(**{"platform_source": "live"})
    assert post_link(live, post_id, platform_url) == platform_url


async def test_a_simulated_post_has_its_rendered_thumbnail(client, runtime, db) -> None:
    from io import BytesIO

    from PIL import Image

    from sors.platforms.sim.adapter import thumbnail_jpeg
    from sors.platforms.sim.render import PALETTE

    snaps = [SimWorld(0).crawl(p, h, DEMO_START)
             for p, h in (("tiktok", "fit.anna"), ("youtube", "fit.anna"))]
    async with db.transaction() as s:
        await ingest_crawls(s, snaps)
        rows = (await s.execute(text(
            "SELECT id, platform, content_type, extra FROM posts ORDER BY id"))).all()
    sizes = {}
    for post_id, platform, content_type, extra in rows:
        r = await client.get(f"/sim/thumbs/{post_id}.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        assert r.headers["cache-control"] == "public, max-age=86400"
        image = Image.open(BytesIO(r.content))
        # A frame the world renders: the first card's background with its text drawn on it.
        corner = image.convert("RGB").getpixel((2, 2))
        assert all(abs(a - b) <= 6 for a, b in zip(corner, PALETTE[0], strict=True)), corner
        assert len(set(image.convert("L").getdata())) > 8  # text, not a flat placeholder
        assert r.content == thumbnail_jpeg(platform, content_type, extra)
        sizes[(platform, content_type)] = image.size
    assert sizes[("youtube", "video")] == (640, 360)
    assert any(size == (360, 640) for (p, _), size in sizes.items() if p == "tiktok")
    assert (await client.get("/sim/thumbs/pst_doesnotexist.jpg")).status_code == 404
    shared = runtime.settings  # the session's settings object: other tests patch it
    runtime.settings = shared.with_values(platform_source="live")
    try:
        assert (await client.get(f"/sim/thumbs/{rows[0][0]}.jpg")).status_code == 404
    finally:
        runtime.settings = shared
