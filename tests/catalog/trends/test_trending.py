"""GET /trending (public, cached for hours), and the catalog's calls a balance cannot cover."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text

from sors.catalog.trends import service as trends
from tests.catalog.conftest import World
from tests.catalog.helpers import desc_key, window_posts
from tests.factories import auth, create_account

# ---- trending -------------------------------------------------------------------------


async def test_trending_is_public_cached_and_one_per_creator(world: World) -> None:
    trends.clear_trending_cache()
    r = await world.client.get("/api/v1/trending")
    assert r.status_code == 200, r.text
    assert "x-credits-charged" not in r.headers
    cache = r.headers["cache-control"]
    assert cache.startswith("public, max-age=")
    assert 0 < int(cache.split("=")[1]) <= 7200
    data = r.json()
    assert data["generatedAt"] == "2026-11-20T12:00:00Z"
    posts = data["posts"]
    rows = await window_posts(world, 7)
    best: dict[str, dict[str, Any]] = {}
    for p in sorted(rows, key=lambda p: (desc_key(p["score_three_months"]), p["id"])):
        if p["score_three_months"] is not None:
            best.setdefault(p["profile_id"], p)
    expected = sorted(best.values(), key=lambda p: (desc_key(p["score_three_months"]), p["id"]))[
        :50
    ]
    assert [p["id"] for p in posts] == [p["id"] for p in expected]
    assert len({p["profile_id"] for p in posts}) == len(posts) <= 50
    assert {p["platform"] for p in posts} == {"tiktok", "instagram", "youtube"}
    for p in posts:
        assert datetime.fromisoformat(p["published_at"]) >= world.now - timedelta(days=7)
        assert p["deleted_at"] is None and p["is_active"] is True

    async with world.db.transaction() as s:  # a change is not seen until the cache expires
        await s.execute(
            text("UPDATE posts SET score_three_months = 999 WHERE id = :i"), {"i": rows[-1]["id"]}
        )
    try:
        again = (await world.client.get("/api/v1/trending")).json()
        assert again == data
        trends.clear_trending_cache()
        fresh = (await world.client.get("/api/v1/trending")).json()
        assert fresh["posts"][0]["id"] == rows[-1]["id"]
    finally:
        async with world.db.transaction() as s:
            await s.execute(
                text("UPDATE posts SET score_three_months = :v WHERE id = :i"),
                {"i": rows[-1]["id"], "v": rows[-1]["score_three_months"]},
            )
        trends.clear_trending_cache()


async def test_trending_expires_after_two_hours_of_clock(world: World) -> None:
    trends.clear_trending_cache()
    first = await world.client.get("/api/v1/trending")
    [by_age] = trends._trending_cache.values()  # one database, one minimum age
    [(age, entry)] = by_age.items()
    by_age[age] = trends._Cached(
        entry.body, entry.generated_at - timedelta(hours=2, seconds=1), entry.made
    )
    second = await world.client.get("/api/v1/trending")
    assert second.json()["generatedAt"] == first.json()["generatedAt"]  # recomputed at NOW
    assert int(second.headers["cache-control"].split("=")[1]) == 7200
    trends.clear_trending_cache()


# ---- billing edges --------------------------------------------------------------------


async def test_calls_the_balance_cannot_cover_are_402_and_change_nothing(world: World) -> None:
    _, key = await create_account(world.db, credits=1, email="poor@example.com")
    r = await world.client.post("/api/v1/trends", json={}, headers=auth(key))
    assert r.status_code == 402 and r.json()["code"] == "insufficient_credits"
    assert r.headers["x-credits-charged"] == "0" and r.headers["x-credits-balance"] == "1"
    r = await world.client.post("/api/v1/search/content", json={"pageSize": 1}, headers=auth(key))
    assert r.status_code == 200 and r.headers["x-credits-balance"] == "0"
    r = await world.client.post("/api/v1/search/profiles", json={}, headers=auth(key))
    assert r.status_code == 402 and r.headers["x-credits-balance"] == "0"
    r = await world.client.get("/api/v1/categories", headers=auth(key))
    assert r.status_code == 200  # free
