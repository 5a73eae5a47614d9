"""POST /search/content: every filter, every sort, paging, clamps, validation, billing."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from sors.catalog.models import WINDOWS
from sors.catalog.records import paging
from sors.catalog.search import service
from tests.catalog.conftest import World
from tests.catalog.helpers import all_pages, all_posts, charged, desc_key, fold_words, ok, post

FLAT_KEYS = {
    "id",
    "approximations",
    "robust_scores",
    "age_adjusted_score",
    "score_status",
    "velocity",
    "projection",
    "score",
    "platform",
    "platform_post_id",
    "url",
    "content_type",
    "caption",
    "published_at",
    "duration_seconds",
    "views",
    "likes",
    "comments",
    "shares",
    "engagement_rate",
    "outlier_scores",
    "thumbnail_url",
    "stats_updated_at",
    "first_seen_at",
    "deleted_at",
    "has_transcript",
    "has_visual_analysis",
    "sound_id",
    "profile_id",
    "handle",
    "display_name",
    "follower_count",
    "is_active",
    "score_baselines",
    "view_epoch",
    "other_view_counts",
    "engagement_anomaly",
}


async def test_default_search_shape_and_charge(world: World) -> None:
    before = await ok(world, "/search/content", {"pageSize": 1})  # warm; read the balance
    assert before["total"] > 3000
    r = await world.client.post("/api/v1/search/content", headers=world.headers)  # no body
    assert r.status_code == 200, r.text
    balance = charged(r, "search_outliers")
    data = r.json()
    assert data["page"] == 1 and data["pageSize"] == 20 and len(data["results"]) == 20
    assert data["hasMore"] is True and data["totalCapped"] is False
    assert set(data["results"][0]) == FLAT_KEYS
    assert set(data["results"][0]["outlier_scores"]) == set(WINDOWS)
    scores = [p["outlier_scores"]["three_months"] for p in data["results"]]
    assert scores == sorted(scores, reverse=True)  # default: best three-month score first
    r2 = await world.client.post("/api/v1/search/content", json={}, headers=world.headers)
    assert int(r2.headers["x-credits-balance"]) == balance - 1
    for p in data["results"]:
        assert p["published_at"].endswith("Z") and p["first_seen_at"].endswith("Z")
        assert p["id"].startswith("pst_") and p["profile_id"].startswith("prf_")


def _since(world: World, window: str) -> Any:
    return world.now - timedelta(days=WINDOWS[window] or 0)


FILTERS: list[tuple[str, dict[str, Any], Any]] = [
    ("tiktok", {"platforms": ["tiktok"]}, lambda p, w: p["platform"] == "tiktok"),
    (
        "ig+yt",
        {"platforms": ["instagram", "youtube"]},
        lambda p, w: p["platform"] in ("instagram", "youtube"),
    ),
    ("reels", {"contentTypes": ["reel"]}, lambda p, w: p["content_type"] == "reel"),
    (
        "video+slideshow",
        {"contentTypes": ["video", "slideshow"]},
        lambda p, w: p["content_type"] in ("video", "slideshow"),
    ),
    (
        "score>=2",
        {"minOutlierScore": 2},
        lambda p, w: p["score_three_months"] is not None and p["score_three_months"] >= 2,
    ),
    (
        "score>=1.5 one_month",
        {"minOutlierScore": 1.5, "scoreWindow": "one_month"},
        lambda p, w: p["score_one_month"] is not None and p["score_one_month"] >= 1.5,
    ),
    ("views>=100k", {"minViews": 100000}, lambda p, w: (p["views"] or -1) >= 100000),
    ("views>=1234.5", {"minViews": 1234.5}, lambda p, w: (p["views"] or -1) >= 1234.5),
    (
        "followers<=20000.7",
        {"maxFollowers": 20000.7},
        lambda p, w: p["owner_followers"] is not None and p["owner_followers"] <= 20000.7,
    ),
    (
        "followers<=50k",
        {"maxFollowers": 50000},
        lambda p, w: p["owner_followers"] is not None and p["owner_followers"] <= 50000,
    ),
    (
        "one_week",
        {"timeFrame": "one_week"},
        lambda p, w: p["published_at"] >= _since(w, "one_week"),
    ),
    (
        "one_month",
        {"timeFrame": "one_month"},
        lambda p, w: p["published_at"] >= _since(w, "one_month"),
    ),
    (
        "combined",
        {
            "platforms": ["tiktok", "youtube"],
            "minViews": 1000,
            "timeFrame": "six_months",
            "minOutlierScore": 0.5,
            "scoreWindow": "all_time",
        },
        lambda p, w: (
            p["platform"] in ("tiktok", "youtube")
            and (p["views"] or -1) >= 1000
            and p["published_at"] >= _since(w, "six_months")
            and p["score_all_time"] is not None
            and p["score_all_time"] >= 0.5
        ),
    ),
]


@pytest.mark.parametrize(("name", "body", "keep"), FILTERS, ids=[f[0] for f in FILTERS])
async def test_each_filter_returns_exactly_the_matching_posts(
    world: World, name: str, body: dict[str, Any], keep: Any
) -> None:
    expected = {p["id"] for p in await all_posts(world) if keep(p, world)}
    assert 0 < len(expected), f"the seeded world has no post for {name}"
    got = await all_pages(world, "/search/content", body)
    ids = [p["id"] for p in got]
    assert len(ids) == len(set(ids))
    assert set(ids) == expected


async def test_query_is_full_text_case_and_accent_insensitive(world: World) -> None:
    posts = await all_posts(world)
    words = Counter(
        w for p in posts for w in fold_words(p["caption"]) if w.isalpha() and len(w) > 3
    )
    common = [w for w, n in words.most_common() if 5 <= n <= 400][:6]
    assert common
    for word in common:
        expected = {p["id"] for p in posts if word in fold_words(p["caption"])}
        got = {p["id"] for p in await all_pages(world, "/search/content", {"query": word.upper()})}
        assert got == expected, word
    # Accents and case fold both ways; every word of the query must be present.
    for q in ("creme brulee", "CRÈME", "café", "latte art"):
        got = await all_pages(world, "/search/content", {"query": q})
        expected = {p["id"] for p in posts if fold_words(q) <= fold_words(p["caption"])}
        assert {p["id"] for p in got} == expected and expected, q
    none = await ok(world, "/search/content", {"query": "zzqqxxnotaword"})
    assert none["results"] == [] and none["total"] == 0 and none["hasMore"] is False


SORT_COLUMNS = {
    "outlier_score": "score_three_months",
    "views": "views",
    "likes": "likes",
    "engagement_rate": "engagement_rate",
    "recent": "published_at",
}


@pytest.mark.parametrize("sort_by", list(SORT_COLUMNS))
async def test_each_sort_orders_and_pages_every_post_exactly_once(
    world: World, sort_by: str
) -> None:
    column = SORT_COLUMNS[sort_by]
    raw = await all_posts(world)
    # Descending, missing values last, ties by id: computed here from the stored values.
    expected = [p["id"] for p in sorted(raw, key=lambda p: (desc_key(p[column]), p["id"]))]
    got = await all_pages(world, "/search/content", {"sortBy": sort_by})
    assert [p["id"] for p in got] == expected


async def test_score_window_picks_the_sort_column(world: World) -> None:
    data = await ok(world, "/search/content", {"scoreWindow": "one_year", "pageSize": 100})
    scores = [p["outlier_scores"]["one_year"] for p in data["results"]]
    assert scores == sorted(scores, reverse=True)
    rows = await world.rows(
        "SELECT id FROM posts ORDER BY score_one_year DESC NULLS LAST, id LIMIT 100"
    )
    assert [p["id"] for p in data["results"]] == [r["id"] for r in rows]


@pytest.mark.parametrize(
    ("sent", "used"), [(0, 1), (-7, 1), (1, 1), (55, 55), (100, 100), (101, 100), (500, 100)]
)
async def test_page_size_is_clamped(world: World, sent: int, used: int) -> None:
    data = await ok(world, "/search/content", {"pageSize": sent})
    assert data["pageSize"] == used and len(data["results"]) == used


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"page": 0}, "page"),
        ({"page": -1}, "page"),
        ({"page": "2"}, "page"),
        ({"pageSize": 2.5}, "pageSize"),
        ({"pageSize": "20"}, "pageSize"),
        ({"sortBy": "comments"}, "sortBy"),
        ({"sortBy": "Views"}, "sortBy"),
        ({"platforms": ["myspace"]}, "platforms.0"),
        ({"platforms": "tiktok"}, "platforms"),
        ({"contentTypes": ["story"]}, "contentTypes.0"),
        ({"minOutlierScore": -1}, "minOutlierScore"),
        ({"minOutlierScore": "3"}, "minOutlierScore"),
        ({"minViews": -5}, "minViews"),
        ({"maxFollowers": True}, "maxFollowers"),
        ({"timeFrame": "one_day"}, "timeFrame"),
        ({"scoreWindow": "forever"}, "scoreWindow"),
        ({"query": 42}, "query"),
        ({"query": "x" * 201}, "query"),
    ],
)
async def test_invalid_bodies_are_422_and_free(
    world: World, body: dict[str, Any], field: str
) -> None:
    r = await post(world, "/search/content", body)
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["code"] == "validation_error"
    assert problem["errors"][0]["field"] == field
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.headers["x-credits-charged"] == "0"


async def test_non_object_body_is_400(world: World) -> None:
    r = await world.client.post(
        "/api/v1/search/content",
        content=b"[1]",
        headers={**world.headers, "content-type": "application/json"},
    )
    assert r.status_code == 400 and r.json()["code"] == "malformed_request"


async def test_unknown_fields_are_refused(world: World) -> None:
    r = await post(world, "/search/content", {"pageSize": 3, "whatever": {"x": 1}})
    assert r.status_code == 422 and r.json()["code"] == "unknown_field"
    assert r.json()["errors"][0]["field"] == "whatever"


async def test_total_is_capped_and_paging_stops_at_the_window(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "RESULT_WINDOW", 250)
    monkeypatch.setattr(paging, "RESULT_WINDOW", 250)
    first = await ok(world, "/search/content", {"pageSize": 100})
    assert first["total"] == 250 and first["totalCapped"] is True and first["hasMore"] is True
    last = await ok(world, "/search/content", {"pageSize": 100, "page": 3})
    assert len(last["results"]) == 50 and last["hasMore"] is False
    r = await post(world, "/search/content", {"pageSize": 100, "page": 4})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "page"
    narrow = await ok(
        world, "/search/content", {"pageSize": 5, "platforms": ["youtube"], "minOutlierScore": 3}
    )
    assert narrow["totalCapped"] is False


async def test_counts_past_the_first_page(world: World) -> None:
    expected = len(await world.rows("SELECT id FROM posts WHERE platform = 'instagram'"))
    data = await ok(
        world, "/search/content", {"platforms": ["instagram"], "pageSize": 7, "page": 3}
    )
    assert data["total"] == expected and len(data["results"]) == 7
    beyond = await ok(world, "/search/content", {"platforms": ["instagram"], "page": 100})
    assert beyond["results"] == [] and beyond["total"] == expected and beyond["hasMore"] is False


async def test_deleted_posts_and_inactive_profiles_are_included(world: World) -> None:
    found = await all_pages(world, "/search/content", {"query": "latte"})
    deleted = [p for p in found if p["platform_post_id"] == "7000000000000000005"]
    assert deleted and deleted[0]["deleted_at"] == "2026-11-19T12:00:00Z"
    assert deleted[0]["views"] == 2000  # frozen at deletion
    gone = await all_pages(world, "/search/content", {"query": "leaving"})
    assert [p["is_active"] for p in gone if p["handle"] == "zz-edge-gone"] == [False]
