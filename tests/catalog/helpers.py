"""Shared helpers of the catalog tests: paging, expected sets, credit checks."""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import timedelta
from typing import Any

from sors.billing.pricing import get_pricing
from sors.catalog.models import WINDOWS
from tests.catalog.conftest import World

POST_COLUMNS = (
    "id, profile_id, platform, content_type, caption, published_at, views, likes, comments, "
    "engagement_rate, owner_followers, deleted_at, " + ", ".join(f"score_{w}" for w in WINDOWS)
)


async def window_posts(world: World, days: int) -> list[dict[str, Any]]:
    """The live posts of active profiles published in the last `days` days."""
    return await world.rows(
        "SELECT p.id, p.profile_id, p.platform, p.content_type, p.caption, p.score_three_months,"
        " pr.handle FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
        "WHERE p.deleted_at IS NULL AND pr.is_active AND p.published_at >= :since",
        since=world.now - timedelta(days=days),
    )


async def all_posts(world: World) -> list[dict[str, Any]]:
    return await world.rows(f"SELECT {POST_COLUMNS} FROM posts")


async def post(world: World, path: str, body: Any = None, **kw: Any) -> Any:
    return await world.client.post(f"/api/v1{path}", json=body, headers=world.headers, **kw)


async def ok(world: World, path: str, body: Any = None) -> dict[str, Any]:
    r = await post(world, path, body)
    assert r.status_code == 200, r.text
    return r.json()


async def all_pages(world: World, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every result of a paged search, checking the envelope on the way."""
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        data = await ok(world, path, {**body, "page": page, "pageSize": 100})
        assert data["page"] == page and data["pageSize"] == 100
        assert not data["totalCapped"]
        out += data["results"]
        if not data["hasMore"]:
            assert len(out) == data["total"]
            return out
        assert len(data["results"]) == 100
        page += 1


def charged(r: Any, skill: str) -> int:
    """Asserts the call was charged exactly the skill's listed cost; returns the balance."""
    assert r.headers["x-credits-charged"] == str(get_pricing().cost(skill)), r.headers
    return int(r.headers["x-credits-balance"])


def fold_words(text: str | None) -> set[str]:
    """Caption words as PostgreSQL's 'simple' configuration plus unaccent sees plain words."""
    if not text:
        return set()
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c)
    )
    return set(re.findall(r"[a-z0-9]+", folded))


def close(a: float | None, b: float | None, *, rel: float = 1e-3, abs_: float = 1e-4) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def desc_key(value: Any) -> tuple[int, Any]:
    """Sort key for DESC NULLS LAST."""
    if value is None:
        return (1, 0)
    return (0, -value if not hasattr(value, "timestamp") else -value.timestamp())
