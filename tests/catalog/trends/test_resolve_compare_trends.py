"""POST /posts/resolve, POST /profiles/compare, POST /trends (GET /trending: test_trending.py)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.catalog.conftest import World
from tests.catalog.helpers import charged, desc_key, fold_words, ok, post, window_posts

# ---- resolve --------------------------------------------------------------------------


async def _one(world: World, platform: str, content_type: str | None = None) -> dict[str, Any]:
    extra = " AND p.content_type = :ct" if content_type else ""
    rows = await world.rows(
        "SELECT p.id, p.platform_post_id, p.profile_id, pr.handle FROM posts p "
        "JOIN profiles pr ON pr.id = p.profile_id "
        f"WHERE p.platform = :pl AND pr.is_active{extra} ORDER BY p.id LIMIT 1",
        pl=platform,
        ct=content_type,
    )
    return rows[0]


def _post_urls(platform: str, handle: str, pid: str) -> list[str]:
    if platform == "tiktok":
        return [
            f"https://www.tiktok.com/@{handle}/video/{pid}",
            f"https://www.tiktok.com/@{handle}/photo/{pid}",
            f"http://m.tiktok.com/@{handle}/video/{pid}?is_from_webapp=1&lang=en#top",
            f"www.tiktok.com/@{handle.upper()}/video/{pid}/",
            f"  https://TIKTOK.com/@{handle}/video/{pid}  ",
        ]
    if platform == "instagram":
        return [
            f"https://www.instagram.com/p/{pid}/",
            f"https://instagram.com/reel/{pid}",
            f"https://www.instagram.com/reels/{pid}/?igsh=abc",
            f"https://www.instagram.com/tv/{pid}/",
            f"https://www.instagram.com/{handle}/p/{pid}/",
        ]
    return [
        f"https://www.youtube.com/watch?v={pid}",
        f"https://m.youtube.com/watch?feature=share&v={pid}&t=12s",
        f"https://youtu.be/{pid}?si=xyz",
        f"https://www.youtube.com/shorts/{pid}",
        f"https://www.youtube.com/live/{pid}",
        f"https://www.youtube.com/embed/{pid}",
        f"https://music.youtube.com/watch?v={pid}",
    ]


@pytest.mark.parametrize("platform", ["tiktok", "instagram", "youtube"])
async def test_resolve_finds_tracked_posts_from_every_url_form(world: World, platform: str) -> None:
    known = await _one(world, platform)
    for url in _post_urls(platform, known["handle"], known["platform_post_id"]):
        r = await post(world, "/posts/resolve", {"url": url})
        assert r.status_code == 200, (url, r.text)
        charged(r, "resolve_post_url")
        assert r.json() == {
            "found": True,
            "postId": known["id"],
            "platform": platform,
            "platformPostId": known["platform_post_id"],
            "profileId": known["profile_id"],
        }, url


async def test_resolve_reports_what_is_missing(world: World) -> None:
    tiktok = await _one(world, "tiktok")
    cases = [
        (
            f"https://www.tiktok.com/@{tiktok['handle']}/video/7999999999999999999",
            {
                "platform": "tiktok",
                "platformPostId": "7999999999999999999",
                "handle": tiktok["handle"],
                "profileTracked": True,
                "reason": "post_not_tracked",
            },
        ),
        (
            "https://www.tiktok.com/@nobody.here.yet/video/7999999999999999999",
            {
                "platform": "tiktok",
                "platformPostId": "7999999999999999999",
                "handle": "nobody.here.yet",
                "profileTracked": False,
                "reason": "profile_not_tracked",
            },
        ),
        (
            "https://www.instagram.com/zz.edge.newname/p/NotStored123/",
            {
                "platform": "instagram",
                "platformPostId": "NotStored123",
                "handle": "zz.edge.newname",
                "profileTracked": True,
                "reason": "post_not_tracked",
            },
        ),
        # The renamed creator's old handle is no longer an active profile.
        (
            "https://www.instagram.com/zz.edge.oldname/reel/NotStored123/",
            {
                "platform": "instagram",
                "platformPostId": "NotStored123",
                "handle": "zz.edge.oldname",
                "profileTracked": False,
                "reason": "profile_not_tracked",
            },
        ),
        (
            "https://www.instagram.com/p/NotStored123/",
            {
                "platform": "instagram",
                "platformPostId": "NotStored123",
                "handle": None,
                "profileTracked": None,
                "reason": "unknown_owner",
            },
        ),
        (
            "https://youtu.be/aaaaaaaaaaa",
            {
                "platform": "youtube",
                "platformPostId": "aaaaaaaaaaa",
                "handle": None,
                "profileTracked": None,
                "reason": "unknown_owner",
            },
        ),
    ]
    for url, expected in cases:
        r = await post(world, "/posts/resolve", {"url": url})
        assert r.status_code == 200, r.text
        charged(r, "resolve_post_url")
        assert r.json() == {"found": False, **expected}, url


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://vm.tiktok.com/ZMabc123/", "short_link_not_supported"),
        ("https://vt.tiktok.com/ZSabc123/", "short_link_not_supported"),
        ("https://www.tiktok.com/t/ZTabc123/", "short_link_not_supported"),
        ("https://www.instagram.com/share/reel/BAabc123/", "short_link_not_supported"),
        ("https://example.com/@a/video/7999999999999999999", "unsupported_url"),
        ("https://www.tiktok.com.evil.example/@a/video/7999999999999999999", "unsupported_url"),
        ("ftp://www.tiktok.com/@a/video/7999999999999999999", "unsupported_url"),
        ("https://user@www.tiktok.com/@a/video/7999999999999999999", "unsupported_url"),
        ("https://www.tiktok.com:8443/@a/video/7999999999999999999", "unsupported_url"),
        ("https://www.tiktok.com/@someone", "unsupported_url"),
        ("https://www.youtube.com/@cookwithsam", "unsupported_url"),
        ("https://www.youtube.com/watch?v=short", "unsupported_url"),
        ("javascript:alert(1)", "unsupported_url"),
        ("http://127.0.0.1/admin", "unsupported_url"),
        ("", "unsupported_url"),
    ],
)
async def test_resolve_refuses_short_links_and_foreign_urls(
    world: World, url: str, code: str
) -> None:
    r = await post(world, "/posts/resolve", {"url": url})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == code
    assert r.headers["x-credits-charged"] == "0"


async def test_resolve_validates_its_body(world: World) -> None:
    for body in ({}, {"url": 5}, {"url": None}):
        r = await post(world, "/posts/resolve", body)
        assert r.status_code == 422 and r.json()["code"] == "validation_error"
        assert r.json()["errors"][0]["field"] == "url"


# ---- compare --------------------------------------------------------------------------


async def _top_profiles(world: World, n: int) -> list[dict[str, Any]]:
    return (await ok(world, "/search/profiles", {"pageSize": n, "platforms": ["tiktok"]}))[
        "results"
    ]


async def test_compare_by_ids_and_handles(world: World) -> None:
    a, b, c = await _top_profiles(world, 3)
    body = {
        "profileIds": [c["id"], "prf_doesnotexist"],
        "handles": [
            {"platform": "tiktok", "handle": "@" + a["handle"].upper()},
            {"platform": "youtube", "handle": "nobody-at-all"},
            {"platform": b["platform"], "handle": b["handle"]},
        ],
    }
    r = await post(world, "/profiles/compare", body)
    assert r.status_code == 200, r.text
    charged(r, "compare_profiles")
    data = r.json()
    assert [p["id"] for p in data["profiles"]] == [c["id"], a["id"], b["id"]]
    assert data["notFound"] == [
        {"profileId": "prf_doesnotexist"},
        {"platform": "youtube", "handle": "nobody-at-all"},
    ]
    rank = data["ranking"]
    assert rank["byFollowers"] == [a["id"], b["id"], c["id"]]  # the search order
    assert rank["topByFollowers"] == a["id"]
    er = {p["id"]: p["averages"]["three_months"]["engagement_rate"] for p in data["profiles"]}
    assert rank["byEngagement"] == sorted(er, key=lambda i: desc_key(er[i]))
    assert rank["topByEngagement"] == rank["byEngagement"][0]
    assert set(data["profiles"][0]) >= {"averages", "follower_count", "categories", "is_active"}


async def test_compare_accepts_handles_as_a_json_string(world: World) -> None:
    a, b = await _top_profiles(world, 2)
    handles = orjson.dumps(
        [
            {"platform": "tiktok", "handle": a["handle"]},
            {"platform": "tiktok", "handle": b["handle"]},
        ]
    ).decode()
    data = await ok(world, "/profiles/compare", {"handles": handles})
    assert [p["id"] for p in data["profiles"]] == [a["id"], b["id"]]
    assert data["notFound"] == []


async def test_compare_keeps_all_not_found_and_still_charges(world: World) -> None:
    r = await post(world, "/profiles/compare", {"profileIds": ["prf_a", "prf_b"]})
    assert r.status_code == 200
    charged(r, "compare_profiles")
    data = r.json()
    assert data["profiles"] == [] and len(data["notFound"]) == 2
    assert data["ranking"]["topByFollowers"] is None and data["ranking"]["byFollowers"] == []


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"profileIds": ["prf_a"]},
        {"handles": [{"platform": "tiktok", "handle": "solo"}]},
        {
            "profileIds": ["prf_a", "prf_b", "prf_c"],
            "handles": [
                {"platform": "tiktok", "handle": "x1"},
                {"platform": "tiktok", "handle": "x2"},
                {"platform": "tiktok", "handle": "x3"},
            ],
        },
        {"profileIds": ["a", "b", "c", "d", "e", "f"]},
        {"handles": "not json"},
        {"handles": '{"platform": "tiktok"}'},
        {
            "handles": '[{"platform": "myspace", "handle": "abc"}, '
            '{"platform": "tiktok", "handle": "ab"}]'
        },
        {
            "handles": [
                {"platform": "tiktok", "handle": "bad handle!"},
                {"platform": "tiktok", "handle": "ok"},
            ]
        },
        {"handles": [{"platform": "tiktok"}, {"platform": "tiktok", "handle": "ok"}]},
        {"profileIds": "prf_a,prf_b"},
    ],
)
async def test_compare_refuses_bad_counts_and_shapes(world: World, body: dict[str, Any]) -> None:
    r = await post(world, "/profiles/compare", body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "validation_error"
    assert r.headers["x-credits-charged"] == "0"


# ---- trends ---------------------------------------------------------------------------


async def test_trends_default_week(world: World) -> None:
    r = await post(world, "/trends", {})
    assert r.status_code == 200, r.text
    charged(r, "niche_trends")
    data = r.json()
    assert data["timeFrame"] == "one_week" and data["query"] is None
    rows = await window_posts(world, 7)
    expected = sorted(rows, key=lambda p: (desc_key(p["score_three_months"]), p["id"]))[:20]
    assert [p["id"] for p in data["posts"]] == [p["id"] for p in expected]
    assert "profile" not in data["posts"][0] and "handle" in data["posts"][0]
    total = len(rows)
    assert sum(c["count"] for c in data["contentTypes"]) == total
    for c in data["contentTypes"]:
        mine = [
            p
            for p in rows
            if (p["platform"], p["content_type"]) == (c["platform"], c["contentType"])
        ]
        assert c["count"] == len(mine)
        assert c["share"] == pytest.approx(len(mine) / total, abs=1e-4)
        scores = [p["score_three_months"] for p in mine if p["score_three_months"] is not None]
        avg = sum(scores) / len(scores) if scores else None
        assert c["avgOutlierScore"] == pytest.approx(avg, abs=1e-4)
    assert [c["profileId"] for c in data["creators"]] == list(
        dict.fromkeys(p["profile_id"] for p in expected)
    )
    for c in data["creators"]:
        mine = [p for p in rows if p["profile_id"] == c["profileId"]]
        assert c["postCount"] == len(mine)
        scores = [p["score_three_months"] for p in mine if p["score_three_months"] is not None]
        assert c["bestOutlierScore"] == pytest.approx(max(scores), abs=1e-4)


async def test_trends_query_limit_platforms_and_time_frame(world: World) -> None:
    rows = await window_posts(world, 90)
    data = await ok(
        world,
        "/trends",
        {
            "query": "latte",
            "timeFrame": "three_months",
            "limit": 500,
            "platforms": ["tiktok", "instagram"],
        },
    )
    expected = [
        p
        for p in rows
        if p["platform"] in ("tiktok", "instagram")
        and ("latte" in fold_words(p["caption"]) or "latte" in p["handle"])
    ]
    assert expected
    assert len(data["posts"]) == min(50, len(expected))
    assert sum(c["count"] for c in data["contentTypes"]) == len(expected)
    assert all(p["deleted_at"] is None and p["is_active"] for p in data["posts"])
    one = await ok(world, "/trends", {"limit": 0})
    assert len(one["posts"]) == 1
    handle_match = await ok(world, "/trends", {"query": "@zz.edge", "timeFrame": "one_month"})
    assert {p["handle"] for p in handle_match["posts"]} == {"zz.edge.cafe", "zz.edge.newname"}
    r = await post(world, "/trends", {"timeFrame": "fortnight"})
    assert r.status_code == 422 and r.headers["x-credits-charged"] == "0"
    r = await post(world, "/trends", {"limit": 2.5})
    assert r.status_code == 422
