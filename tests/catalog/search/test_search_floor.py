"""The window score indexes hold only the posts at or above the baseline (migration 0015):
a search sorted by such a score reads its page from the index, and the rest (lower scores,
then none) only when the page reaches below the floor. Every page must be the one a single
statement over all posts gives, wherever the page boundary falls."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import text

from sors.catalog.models import SCORE_INDEX_FLOOR, WINDOW_SCORES
from sors.catalog.records import repository as repo
from sors.catalog.search import repository as search_repo
from sors.catalog.trends import repository as trends_repo
from tests.catalog.conftest import World

FILTERS = [
    search_repo.PostFilter(),
    search_repo.PostFilter(platforms=["tiktok"]),
    search_repo.PostFilter(score_window="one_week"),  # mostly no score: a long tail of NULLs
    search_repo.PostFilter(score_window="one_month", score_method="median"),
    search_repo.PostFilter(platforms=["youtube"], min_score=0.5),  # a minimum below the floor
]


async def _all(world: World, f: search_repo.PostFilter) -> list[dict]:
    """The reference: one statement, no split, every match in order."""
    async with world.db.session() as s:
        built = search_repo.search_posts_stmt(f, sort_by="outlier_score", limit=100_000, offset=0)
        return [dict(r._mapping) for r in (await s.execute(built)).all()]


@pytest.mark.parametrize("f", FILTERS)
async def test_pages_across_the_floor_are_one_statements_pages(world: World,
                                                               f: search_repo.PostFilter) -> None:
    expected = await _all(world, f)
    col = repo.score_column(f.score_window, f.score_method).name
    head = sum(1 for r in expected if r[col] is not None and r[col] >= SCORE_INDEX_FLOOR)
    # The world has posts on both sides of the floor for each filter: the test crosses it.
    assert 0 < head < len(expected), (head, len(expected))
    async with world.db.session() as s:
        for size in (1, 3, 7, head, head + 1):
            for offset in sorted({0, head - 1, head, head + 1, max(0, head - size),
                                  len(expected) - 1, len(expected) + 2}):
                got = await search_repo.search_posts(s, f, sort_by="outlier_score", limit=size,
                                              offset=max(0, offset))
                want = expected[max(0, offset):max(0, offset) + size]
                assert [r["id"] for r in got] == [r["id"] for r in want], (size, offset)
                assert got == want


async def test_a_minimum_from_the_floor_up_reads_the_index_only(world: World) -> None:
    """minOutlierScore >= 1: no tail step (nothing below the floor can match), and the
    statement states the index's predicate as a literal, so even a prepared generic plan
    can use the partial index."""
    f = search_repo.PostFilter(min_score=1.0)
    assert not search_repo._split(f, "outlier_score")
    sql = str(search_repo.search_posts_stmt(f, sort_by="outlier_score", limit=5, offset=0)
              .compile(compile_kwargs={"literal_binds": False}))
    assert f"score_three_months >= {SCORE_INDEX_FLOOR}" in sql
    below = replace(f, min_score=0.99)
    assert search_repo._split(below, "outlier_score")
    # age-matched scores keep a full index: never split
    assert not search_repo._split(
        search_repo.PostFilter(score_method="age_adjusted"), "outlier_score")


async def test_the_window_score_indexes_are_partial(world: World) -> None:
    rows = await world.rows(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'posts' "
        "AND indexname LIKE 'ix_posts_%score%'"
    )
    defs = {r["indexname"]: r["indexdef"] for r in rows}
    for col in WINDOW_SCORES:
        assert f"WHERE ({col} >= (1)::double precision)" in defs[f"ix_posts_{col}"]
    assert "WHERE" not in defs["ix_posts_age_score"]
    # and the planner takes the partial index for a guarded search
    async with world.db.session() as s:
        await s.execute(text("SET LOCAL enable_seqscan = off"))
        plan = "\n".join(r[0] for r in (await s.execute(text(
            "EXPLAIN SELECT id FROM posts WHERE score_three_months >= 1 "
            "ORDER BY score_three_months DESC NULLS LAST, id LIMIT 5"))).all())
    assert "ix_posts_score_three_months" in plan


async def test_trend_posts_fill_from_below_the_floor(world: World) -> None:
    async with world.db.session() as s:
        f = trends_repo.TrendFilter(published_since=None, platforms=["instagram"])
        rows = await trends_repo.trend_posts(s, f, score_window="three_months", limit=10_000)
        scores = [r["score_three_months"] for r in rows]
        ordered = sorted(scores, key=lambda v: (v is None, -(v or 0)))
        assert scores == ordered
        assert any(v is not None and v >= 1 for v in scores)
        assert any(v is None or v < 1 for v in scores)
        total = (await s.execute(text(
            "SELECT count(*) FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
            "WHERE p.platform = 'instagram' AND p.deleted_at IS NULL AND pr.is_active"
        ))).scalar_one()
        assert len(rows) == total
