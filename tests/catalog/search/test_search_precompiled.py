"""Searches run precompiled per shape on the driver connection (`kit.db.sql_for_shape`):
the same rows as the statement the repository builds, run through the ORM, and one compiled
statement per shape, whatever the values."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from sors.catalog.search import repository as repo
from sors.kit import db as kit_db
from tests.catalog.conftest import World

POST_FILTERS = [
    repo.PostFilter(),
    repo.PostFilter(platforms=["tiktok"], min_score=2.0),
    repo.PostFilter(platforms=["tiktok", "youtube"], content_types=["video", "short"]),
    repo.PostFilter(query="recipe", score_window="one_month", score_method="median"),
    repo.PostFilter(min_views=1000.5, max_followers=1e30, score_method="age_adjusted"),
]


@pytest.mark.parametrize("f", POST_FILTERS)
@pytest.mark.parametrize("sort_by", ["outlier_score", "views", "recent"])
async def test_post_search_matches_the_built_statement(world: World, f: repo.PostFilter,
                                                       sort_by: str) -> None:
    if f.query:  # with a time frame too
        f = replace(f, published_since=world.now - timedelta(days=400))
    async with world.db.session() as s:
        built = repo.search_posts_stmt(f, sort_by=sort_by, limit=30, offset=5)
        expected = [dict(r._mapping) for r in (await s.execute(built)).all()]
        got = await repo.search_posts(s, f, sort_by=sort_by, limit=30, offset=5)
        assert got == expected and got
        counted = (await s.execute(repo.count_posts_stmt(f, cap=100))).scalar_one()
        assert await repo.count_posts(s, f, cap=100) == counted


async def test_profile_search_matches_the_built_statement(world: World) -> None:
    filters = [
        repo.ProfileFilter(),
        repo.ProfileFilter(query="a_%", platforms=["instagram"]),
        repo.ProfileFilter(category_ids=["food", "food.baking"]),
        repo.ProfileFilter(category_ids=[]),
    ]
    async with world.db.session() as s:
        for f in filters:
            built = repo.search_profiles_stmt(f, limit=10, offset=0)
            expected = [dict(r._mapping) for r in (await s.execute(built)).all()]
            assert await repo.search_profiles(s, f, limit=10, offset=0) == expected
            counted = (await s.execute(repo.count_profiles_stmt(f, cap=50))).scalar_one()
            assert await repo.count_profiles(s, f, cap=50) == counted


async def test_one_statement_per_shape(world: World) -> None:
    kit_db._SHAPES.clear()
    async with world.db.session() as s:
        for platform, score in (("tiktok", 1.0), ("youtube", 3.5), ("instagram", 9.0)):
            await repo.search_posts(s, repo.PostFilter(platforms=[platform], min_score=score),
                                    sort_by="views", limit=5, offset=0)
        assert len(kit_db._SHAPES) == 1
        await repo.search_posts(s, repo.PostFilter(platforms=["tiktok", "youtube"]),
                                sort_by="views", limit=5, offset=0)
        assert len(kit_db._SHAPES) == 2


async def test_parameters_keep_their_column_types_once_prepared(world: World) -> None:
    """The driver prepares a statement after a few runs; a count past INTEGER (found by the
    fuzzer) or an aware timestamp must still bind as the column's type, not as the type the
    first values suggested."""
    async with world.db.session() as s:
        small = repo.PostFilter(max_followers=100, min_views=1,
                                published_since=world.now - timedelta(days=30))
        for _ in range(8):
            await repo.search_posts(s, small, sort_by="views", limit=5, offset=0)
        huge = replace(small, max_followers=5.3260334288759896e16, min_views=0)
        rows = await repo.search_posts(s, huge, sort_by="views", limit=5, offset=0)
        assert rows and all(r["published_at"] >= small.published_since for r in rows)
        assert await repo.count_posts(s, huge, cap=10) == 11
