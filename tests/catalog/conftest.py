"""A small seeded world shared by the catalog tests (seeded once for the package).

The `client` fixture of tests/conftest.py truncates every table after each test, so these
tests use their own package-scoped client over the session `app` and truncate at the end.
The world: simulated profiles through the real seed path (sors.demo.seed), plus a few
hand-made crawls for what one crawl of the simulation cannot show: deleted posts, hidden
and zero view counts, accented captions, a renamed creator and a deactivated profile.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.trends.service import clear_trending_cache
from sors.demo.seed import seed_world
from sors.kit.db import Database
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot
from sors.platforms.sim.clock import set_time
from tests.conftest import KEEP_TABLES
from tests.factories import auth, create_account, reset_tables
from tests.factories.world import fresh_sim_clock, sim_time_restored

__all__ = ["sim_time_restored"]  # a fixture: the modules that move the simulated clock use it

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
SIM_PROFILES = 60
SIM_SEED = 11


@dataclass
class World:
    client: httpx.AsyncClient
    db: Database
    app: Any
    key: str
    account_id: str
    now: datetime

    @property
    def headers(self) -> dict[str, str]:
        return auth(self.key)

    async def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        async with self.db.session() as s:
            return [dict(r._mapping) for r in (await s.execute(text(sql), params)).all()]


# ---- hand-made crawls -----------------------------------------------------------------


def _profile(platform: str, handle: str, user_id: str, **kw: Any) -> ProfileSnapshot:
    return ProfileSnapshot(
        platform=platform,  # type: ignore[arg-type]
        handle=handle,
        platform_user_id=user_id,
        display_name=kw.get("display_name", handle.title()),
        bio=kw.get("bio", "Coffee and baking at home"),
        avatar_url=f"https://img.example/{handle}.jpg",
        follower_count=kw.get("followers", 5000),
    )


def _post(
    platform: str,
    handle: str,
    pid: str,
    days_ago: float,
    caption: str,
    views: int | None,
    likes: int | None,
    comments: int | None,
    content_type: str = "video",
) -> PostSnapshot:
    if platform == "tiktok":
        url = f"https://www.tiktok.com/@{handle}/video/{pid}"
    elif platform == "instagram":
        url = f"https://www.instagram.com/p/{pid}/"
    else:
        url = f"https://www.youtube.com/watch?v={pid}"
    return PostSnapshot(
        platform=platform,  # type: ignore[arg-type]
        platform_post_id=pid,
        url=url,
        content_type=content_type,
        caption=caption,
        published_at=NOW - timedelta(days=days_ago),
        duration_seconds=30.0,
        views=views,
        likes=likes,
        comments=comments,
        shares=None,
        thumbnail_url=f"https://img.example/{pid}.jpg",
    )


def _edge_cafe(at: datetime, *, with_deleted: bool) -> CrawlSnapshot:
    h = "zz.edge.cafe"
    posts = [
        _post(
            "tiktok", h, "7000000000000000001", 40, "Crème brûlée au Café ☕ #baking", 1000, 100, 10
        ),
        _post("tiktok", h, "7000000000000000002", 20, "Sourdough 100% hydration_test", 0, 0, 0),
        _post(
            "tiktok",
            h,
            "7000000000000000003",
            10,
            "Views hidden on this one",
            None,
            None,
            None,
            content_type="slideshow",
        ),
        _post(
            "tiktok", h, "7000000000000000004", 5, "CAFE latte art in my kitchen", 50000, 5000, 100
        ),
    ]
    if with_deleted:
        posts.append(
            _post("tiktok", h, "7000000000000000005", 4, "soon deleted latte", 2000, 100, 5)
        )
    return CrawlSnapshot(_profile("tiktok", h, "edge-cafe", followers=12000), posts, at)


def _renamed(handle: str, at: datetime, extra: bool) -> CrawlSnapshot:
    posts = [
        _post("instagram", handle, "EdgeRen0001", 30, "Morning yoga flow", 800, 80, 8, "reel"),
        _post("instagram", handle, "EdgeRen0002", 25, "Evening yoga stretch", 1200, 90, 9, "reel"),
    ]
    if extra:
        posts.append(
            _post(
                "instagram",
                handle,
                "EdgeRen0003",
                1,
                "New name, same yoga",
                5000,
                400,
                20,
                "carousel",
            )
        )
    return CrawlSnapshot(
        _profile("instagram", handle, "edge-rename", bio="Yoga and pilates", followers=800),
        posts,
        at,
    )


def _gone(at: datetime) -> CrawlSnapshot:
    h = "zz-edge-gone"
    posts = [
        _post("youtube", h, "EdgeGone001", 3, "Last video before leaving", 9000, 300, 30),
        _post("youtube", h, "EdgeGone002", 60, "An older video", 3000, 100, 10),
    ]
    return CrawlSnapshot(_profile("youtube", h, "edge-gone", followers=None), posts, at)


async def _seed_edges(db: Database) -> None:
    async with db.transaction() as s:
        await ingest_crawls(s, [_edge_cafe(NOW - timedelta(days=3), with_deleted=True)])
    async with db.transaction() as s:
        await ingest_crawls(s, [_edge_cafe(NOW - timedelta(days=1), with_deleted=False)])
    async with db.transaction() as s:
        await ingest_crawls(s, [_renamed("zz.edge.oldname", NOW - timedelta(days=20), False)])
    async with db.transaction() as s:
        await ingest_crawls(s, [_renamed("zz.edge.newname", NOW - timedelta(hours=6), True)])
    async with db.transaction() as s:
        await ingest_crawls(s, [_gone(NOW - timedelta(days=2))])
        # Ingest has no path that deactivates a vanished account yet; do what it will do.
        await s.execute(text("UPDATE profiles SET is_active = false WHERE handle = 'zz-edge-gone'"))


# ---- fixtures -------------------------------------------------------------------------


async def _seed(app: Any, db: Database) -> tuple[str, str]:
    await reset_tables(db, KEEP_TABLES)
    clear_trending_cache()
    async with db.transaction() as s:
        await set_time(s, NOW)
    await seed_world(db, settings=app.state.runtime.settings, profiles=SIM_PROFILES,
                     seed=SIM_SEED, now=NOW)
    await _seed_edges(db)
    return await create_account(db, credits=1_000_000)


async def _still_seeded(db: Database, account_id: str) -> bool:
    async with db.session() as s:
        found = await s.execute(text("SELECT 1 FROM accounts WHERE id = :a"), {"a": account_id})
        return found.first() is not None


@pytest.fixture(scope="package")
async def _world_client(app: Any, db: Database) -> AsyncIterator[dict[str, Any]]:
    """The package's client and what it last seeded; torn down with the package."""
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5601))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        box: dict[str, Any] = {"client": client}
        yield box
    if "account" in box:
        await reset_tables(db, KEEP_TABLES)
        clear_trending_cache()
        await app.state.limiter.reset()
        app.state.runtime.clock = fresh_sim_clock(db)


@pytest.fixture
async def world(app: Any, db: Database, _world_client: dict[str, Any]) -> World:
    """Seeded once per package, and again when a test between two of its users emptied the
    tables (the tests of search by meaning start from an empty catalog)."""
    box = _world_client
    if "account" not in box or not await _still_seeded(db, box["account"][0]):
        box["account"] = await _seed(app, db)
    account_id, key = box["account"]
    return World(box["client"], db, app, key, account_id, NOW)


@pytest.fixture(autouse=True)
async def _fresh_limits(request: pytest.FixtureRequest) -> None:
    # Paging through every result takes more than one minute's worth of requests.
    if "world" in request.fixturenames:
        await request.getfixturevalue("app").state.limiter.reset()
