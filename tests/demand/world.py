"""A small simulated niche with its comments, typed and embedded as the demo's build keeps
them, and its posts embedded: what demand search reads."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.vectors import embeddings
from sors.config import Settings
from sors.demo.comments import keep_world_comments
from sors.demo.seed import ensure_categories
from sors.kit.db import Database
from sors.platforms.base import Platform
from sors.platforms.sim.clock import set_time
from sors.platforms.sim.world import SimWorld

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
NICHE = "food.baking"
# Handles that announce the niche (sim/content.py niche_for_handle), on all three platforms.
HANDLES: list[tuple[Platform, str]] = [
    ("tiktok", "baking.with.ann"), ("tiktok", "sourdough.sam"), ("instagram", "bakes.by.tom"),
    ("instagram", "baking.mia"), ("youtube", "bakingwithleo"), ("youtube", "sourdoughnina"),
    ("tiktok", "yoga.with.mia"),  # another niche: outside the scope
]


async def seed_niche(db: Database, settings: Settings) -> SimWorld:
    world = SimWorld(0)
    async with db.transaction() as s:
        await set_time(s, NOW)
        await ensure_categories(s)
    crawls = [world.crawl(p, h, NOW) for p, h in HANDLES]
    async with db.transaction() as s:
        await ingest_crawls(s, crawls)
        await keep_world_comments(s, world, crawls, NOW, settings)
    while True:
        async with db.transaction() as s:
            if not await embeddings.embed_pending(s, settings):
                break
    return world


async def seed_posts(db: Database) -> str:
    """The niche's posts without their comments; the most commented post's id."""
    world = SimWorld(0)
    async with db.transaction() as s:
        await set_time(s, NOW)
        await ensure_categories(s)
        await ingest_crawls(s, [world.crawl(p, h, NOW) for p, h in HANDLES])
        return str((await s.execute(text(
            "SELECT id FROM posts ORDER BY comments DESC NULLS LAST, id LIMIT 1"))).scalar_one())
