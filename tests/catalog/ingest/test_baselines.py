"""The baseline rule, robust (median) scores per format, age-matched scores, scoreMethod
search and CSV export: each through HTTP against PostgreSQL, with hand-made crawls whose
expected numbers are computed here by hand."""

from __future__ import annotations

import csv
import dataclasses
import io
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot
from tests.factories import auth, create_account

# The shared simulated clock is put back after each test.
pytestmark = pytest.mark.usefixtures("sim_time_restored")

T = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def profile(platform: str, handle: str) -> ProfileSnapshot:
    return ProfileSnapshot(
        platform=platform,  # type: ignore[arg-type]
        handle=handle,
        platform_user_id=f"uid-{handle}",
        display_name=handle,
        bio="baking bread",
        avatar_url=None,
        follower_count=1000,
    )


def post(
    platform: str, pid: str, published: datetime, views: int, content_type: str = "video"
) -> PostSnapshot:
    url = {
        "tiktok": f"https://www.tiktok.com/@x/video/{pid}",
        "youtube": f"https://www.youtube.com/watch?v={pid}",
        "instagram": f"https://www.instagram.com/p/{pid}/",
    }[platform]
    return PostSnapshot(
        platform=platform,  # type: ignore[arg-type]
        platform_post_id=pid,
        url=url,
        content_type=content_type,
        caption=f"post {pid}",
        published_at=published,
        duration_seconds=30.0,
        views=views,
        likes=views // 10,
        comments=views // 100,
        shares=None,
        thumbnail_url=None,
    )


async def ingest(db: Any, *snaps: CrawlSnapshot) -> list[str]:
    async with db.transaction() as s:
        return await ingest_crawls(s, list(snaps))


async def by_pid(client: httpx.AsyncClient, h: dict[str, str], body: dict[str, Any]) -> dict:
    r = await client.post("/api/v1/search/content", json={"pageSize": 100, **body}, headers=h)
    assert r.status_code == 200, r.text
    return {p["platform_post_id"]: p for p in r.json()["results"]}


@pytest.fixture
async def h(db: Any, client: httpx.AsyncClient) -> dict[str, str]:
    _, key = await create_account(db, credits=1000)
    return auth(key)


async def test_a_13_minute_old_post_is_no_baseline(db, client, h) -> None:
    # The case: the newest week holds one post, published 13 minutes before the
    # crawl. Its one-week average and every one-week score are null, and the profile says
    # the average is built from no post (one too young to count).
    posts = [
        post("tiktok", "7100000000000000001", T - timedelta(minutes=13), 8),
        *[
            post("tiktok", f"71000000000000001{i:02d}", T - timedelta(days=10 + 3 * i), 400 + i)
            for i in range(6)
        ],
    ]
    [pid] = await ingest(db, CrawlSnapshot(profile("tiktok", "young.week"), posts, T))
    prof = (await client.get(f"/api/v1/profiles/{pid}", headers=h)).json()
    week = prof["averages"]["one_week"]
    assert week == {
        "views": None,
        "likes": None,
        "engagement_rate": None,
        "post_count": 0,
        "young_post_count": 1,
        # The creator's history (25 days) covers the whole week; no post: thin.
        "days_covered": 7.0,
        "quality": "thin",
    }
    month = prof["averages"]["one_month"]
    assert month["post_count"] == 6 and month["views"] == pytest.approx(402.5)
    found = await by_pid(client, h, {"query": "post"})
    assert {p["outlier_scores"]["one_week"] for p in found.values()} == {None}
    fresh = found["7100000000000000001"]
    assert fresh["outlier_scores"]["one_month"] == pytest.approx(8 / 402.5, abs=1e-4)


async def test_youtube_shorts_are_measured_against_shorts(db, client, h) -> None:
    # Long videos live at ~100k views, shorts at ~2k. A 8k short is a 4x outlier among its
    # shorts; against every video (the mean) it looks below average. Both formats count a
    # view from its first frame here (after 2026-08-24), so the mean takes them together.
    T = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)
    longs = [100_000, 90_000, 110_000, 95_000, 105_000, 120_000]
    shorts = [2_000, 1_800, 2_200, 1_900, 2_100, 8_000]
    posts = [
        post("youtube", f"LongVideo{i:02d}", T - timedelta(days=5 + i), v, "video")
        for i, v in enumerate(longs)
    ] + [
        post("youtube", f"ShortClip{i:02d}", T - timedelta(days=4 + i), v, "short")
        for i, v in enumerate(shorts)
    ]
    await ingest(db, CrawlSnapshot(profile("youtube", "mixedformats"), posts, T))
    found = await by_pid(client, h, {"query": "post"})
    hit = found["ShortClip05"]
    robust = hit["robust_scores"]["one_month"]
    assert robust["median_views"] == statistics.median(shorts[:5]) == 2_000
    assert robust["post_count"] == 5
    assert robust["score"] == pytest.approx(4.0)
    mean_all = sum(longs + shorts) / len(longs + shorts)
    assert hit["outlier_scores"]["one_month"] == pytest.approx(8_000 / mean_all, abs=1e-4)
    assert hit["outlier_scores"]["one_month"] < 0.2
    # Over every video the median would have been ~50k: the format split is what finds it.
    assert statistics.median(longs + shorts[:5]) > 40_000
    long_one = found["LongVideo00"]["robust_scores"]["one_month"]
    assert long_one["median_views"] == statistics.median(longs[1:])
    # Under 5 other shorts in the window: no robust score.
    assert found["ShortClip00"]["robust_scores"]["one_week"]["score"] is None


async def test_median_finds_the_4x_post_a_mega_hit_hides(db, client, h) -> None:
    views = [1_000, 900, 1_100, 950, 1_050, 1_000, 980, 1_020, 1_000]
    posts = [
        post("tiktok", f"72000000000000000{i:02d}", T - timedelta(days=3 + i), v)
        for i, v in enumerate(views)
    ]
    posts.append(post("tiktok", "7200000000000000100", T - timedelta(days=20), 200_000))
    posts.append(post("tiktok", "7200000000000000200", T - timedelta(days=15), 4_000))
    await ingest(db, CrawlSnapshot(profile("tiktok", "mega.hit"), posts, T))
    by_mean = await by_pid(client, h, {"minOutlierScore": 3, "scoreWindow": "one_month"})
    assert set(by_mean) == {"7200000000000000100"}  # the mean sees the mega-hit only
    body = {"minOutlierScore": 3, "scoreWindow": "one_month", "scoreMethod": "median"}
    r = await client.post("/api/v1/search/content", json=body, headers=h)
    data = r.json()
    assert data["scoreMethod"] == "median"
    ids = [p["platform_post_id"] for p in data["results"]]
    assert ids == ["7200000000000000100", "7200000000000000200"]  # sorted by median score
    four = data["results"][1]
    others = sorted([*views, 200000])
    assert four["robust_scores"]["one_month"]["median_views"] == statistics.median(others)
    assert four["score"] == pytest.approx(4_000 / statistics.median(others), abs=1e-4)
    assert four["outlier_scores"]["one_month"] < 1  # hidden by the mean


async def test_age_adjusted_scores_match_a_hand_computation(db, client, h) -> None:
    a, b = T, T + timedelta(hours=48)
    # Six earlier posts, each seen at both crawls; the target appears at crawl B, 36 h old.
    ages_at_a = [2, 6, 10, 20, 30, 35]  # hours
    at_a = [100, 300, 500, 900, 1_500, 1_800]
    at_b = [2_100, 2_300, 2_900, 3_300, 4_000, 4_400]
    earlier = [
        ("730000000000000000" + str(i), a - timedelta(hours=x)) for i, x in enumerate(ages_at_a)
    ]
    crawl_a = [post("tiktok", pid, pub, v) for (pid, pub), v in zip(earlier, at_a, strict=True)]
    target = post("tiktok", "7300000000000000099", b - timedelta(hours=36), 9_000)
    crawl_b = [post("tiktok", pid, pub, v) for (pid, pub), v in zip(earlier, at_b, strict=True)]
    prof = profile("tiktok", "age.match")
    await ingest(db, CrawlSnapshot(prof, crawl_a, a))
    await ingest(db, CrawlSnapshot(prof, [*crawl_b, target], b))
    # By hand: each earlier post's views at age 36 h, on the line between its two snapshots
    # (ages x and x + 48).
    expected = [
        lo + (hi - lo) * (36 - x) / 48 for x, lo, hi in zip(ages_at_a, at_a, at_b, strict=True)
    ]
    median = statistics.median(expected)
    found = await by_pid(client, h, {"query": "post", "scoreMethod": "age_adjusted"})
    got = found["7300000000000000099"]["age_adjusted_score"]
    assert got["post_count"] == 6
    assert got["age_hours"] == pytest.approx(36)
    assert got["expected_views"] == pytest.approx(median, abs=0.01)
    assert got["score"] == pytest.approx(9_000 / median, abs=1e-4)
    assert found["7300000000000000099"]["score"] == got["score"]


async def test_csv_export_pages_like_json(db, client, h) -> None:
    posts = [
        post("tiktok", f"74000000000000000{i:02d}", T - timedelta(days=3 + i), 100 * (i + 1))
        for i in range(7)
    ]
    posts[0] = dataclasses.replace(posts[0], caption="=HYPERLINK(evil)")
    await ingest(db, CrawlSnapshot(profile("tiktok", "csv.export"), posts, T))
    body = {"pageSize": 3, "page": 2, "sortBy": "views"}
    js = (await client.post("/api/v1/search/content", json=body, headers=h)).json()
    r = await client.post(
        "/api/v1/search/content", json=body, headers={**h, "Accept": "text/csv"}
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["x-credits-charged"] == "1"
    assert r.headers["x-total"] == "7" and r.headers["x-has-more"] == "true"
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [x["id"] for x in rows] == [p["id"] for p in js["results"]]
    assert [int(x["views"]) for x in rows] == [400, 300, 200]
    everything = await client.post(
        "/api/v1/search/content", json={"sortBy": "views"}, headers={**h, "Accept": "text/csv"}
    )
    captions = [x["caption"] for x in csv.DictReader(io.StringIO(everything.text))]
    assert "'=HYPERLINK(evil)" in captions  # never a live formula
    prof = await client.post(
        "/api/v1/search/profiles", json={"query": "csv"}, headers={**h, "Accept": "text/csv"}
    )
    [row] = list(csv.DictReader(io.StringIO(prof.text)))
    assert row["handle"] == "csv.export" and prof.headers["x-credits-charged"] == "1"


async def test_young_posts_say_which_score_is_fair_instead_of_looking_like_flops(
    db, client, h
) -> None:
    a, b = T, T + timedelta(hours=48)
    ages_at_a = [2, 6, 10, 20, 30, 35]
    at_a = [100, 300, 500, 900, 1_500, 1_800]
    at_b = [2_100, 2_300, 2_900, 3_300, 4_000, 4_400]
    earlier = [
        ("740000000000000000" + str(i), a - timedelta(hours=x)) for i, x in enumerate(ages_at_a)
    ]
    prof = profile("tiktok", "young.fair")
    await ingest(db, CrawlSnapshot(
        prof, [post("tiktok", pid, pub, v) for (pid, pub), v in zip(earlier, at_a, strict=True)],
        a))
    crawl_b = [post("tiktok", pid, pub, v) for (pid, pub), v in zip(earlier, at_b, strict=True)]
    matched = post("tiktok", "7400000000000000098", b - timedelta(hours=36), 300)
    newborn = post("tiktok", "7400000000000000099", b - timedelta(minutes=40), 250)
    [pid] = await ingest(db, CrawlSnapshot(prof, [*crawl_b, matched, newborn], b))
    r = await client.get(f"/api/v1/profiles/{pid}", headers=h)
    assert r.status_code == 200, r.text
    recent = {p["platform_post_id"]: p for p in r.json()["recent_posts"]}
    # Against the mature posts' average (~3,200) both young posts look like 0.1× flops:
    # the window score keeps its meaning, and the record says it is not the one to show.
    young = recent["7400000000000000098"]
    assert young["outlier_scores"]["all_time"] == pytest.approx(300 / (sum(at_b) / 6), abs=1e-3)
    assert young["score_status"] == "age_adjusted"
    assert young["age_adjusted_score"]["score"] is not None
    assert young["age_adjusted_score"]["age_hours"] == pytest.approx(36)
    baby = recent["7400000000000000099"]
    assert baby["outlier_scores"]["all_time"] is not None
    assert baby["score_status"] == "too_young" and baby["age_adjusted_score"]["score"] is None
    assert {recent[p]["score_status"] for p, _ in earlier} == {"mature"}  # 50-83 h old
    # Search results carry the same status.
    found = await by_pid(client, h, {"query": "post"})
    assert found["7400000000000000099"]["score_status"] == "too_young"
    assert found["7400000000000000000"]["score_status"] == "mature"
