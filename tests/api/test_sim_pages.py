"""In simulation, a stored post's link leads to the demo's own page for it."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from sors.alerts.links import post_link
from sors.catalog.ingest import ingest_crawls
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
    live = settings.model_copy(update={"platform_source": "live"})
    assert post_link(live, post_id, platform_url) == platform_url
