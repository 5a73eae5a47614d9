"""What a strategist reads off two real exports (tests/fixtures/sources/README.md): a short
history gives thin baselines, never outliers; a post with boosted views is flagged with its
numbers; Instagram's plays and video views are both kept; a rounded count reads as one in
the console and the CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli.test_import import SOURCES, imported
from tests.factories import auth, create_account
from tests.factories.world import rows, set_time, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")

__all__ = ["sim_time_restored"]

MEENITECH = SOURCES / "apify/tiktok/profile_meenitech_2025-07-08.json"
GOEDUITJE = SOURCES / "apify/instagram/profile_posts_goeduitje_2025-09-04.json"


async def _posts_of(client: httpx.AsyncClient, key: str, profile_id: str,
                    **filters: Any) -> dict[str, dict[str, Any]]:
    r = await client.post("/api/v1/search/content", headers=auth(key), json={
        "profileIds": [profile_id], "timeFrame": "all_time", "pageSize": 100, **filters})
    assert r.status_code == 200, r.text
    return {p["platform_post_id"]: p for p in r.json()["results"]}


async def _profile_id(db, handle: str) -> str:
    [row] = await rows(db, "SELECT id FROM profiles WHERE handle = :h", h=handle)
    return row["id"]


async def test_meenitechs_ten_posts_over_eight_days_are_a_thin_baseline_shown_once(
    db, client: httpx.AsyncClient, app, pg_url: str, tmp_path: Path
) -> None:
    imported(pg_url, tmp_path, str(MEENITECH), "--observed-at", "2025-07-08T10:55:10Z")
    await set_time(db, datetime(2025, 7, 8, 11, 0, tzinfo=UTC))
    _, key = await create_account(db, credits=50)
    posts = await _posts_of(client, key, await _profile_id(db, "meenitech"))
    assert len(posts) == 10
    top = posts["7522768627737627912"]  # 34100 plays: TikTok's rounded figure
    assert top["views"] == 34100 and top["approximations"]["views"] == "rounded"
    scores = top["outlier_scores"]
    assert scores["all_time"] is not None and scores["all_time"] > 3
    baselines = top["score_baselines"]
    # A week: 5 posts old enough to count. Two weeks to all time: the same 8 posts of an
    # 8-day history, one score (4.5x) said once, never an outlier: every baseline is thin.
    assert (baselines["one_week"]["post_count"], baselines["two_weeks"]["post_count"]) == (5, 8)
    for w, b in baselines.items():
        assert b["quality"] == "thin", w
        assert b["days_covered"] < 8.5, (w, b)
        if w not in ("one_week", "two_weeks"):
            assert b["same_as"] == "two_weeks" and scores[w] == scores["two_weeks"], (w, b)
    assert baselines["two_weeks"]["same_as"] is None
    # A search that asks for a fair baseline finds none of them.
    assert await _posts_of(client, key, top["profile_id"], baselineQuality="ok") == {}
    assert await _posts_of(client, key, top["profile_id"], minOutlierScore=3,
                           baselineQuality="ok") == {}

    # CSV: the rounded count is flagged in its own column, the baseline's quality too.
    r = await client.post("/api/v1/search/content", json={
        "profileIds": [top["profile_id"]], "timeFrame": "all_time", "pageSize": 100},
        headers={**auth(key), "Accept": "text/csv"})
    table = {row["platform_post_id"]: row for row in csv.DictReader(io.StringIO(r.text))}
    assert table["7522768627737627912"]["views_approximate"] == "rounded"
    assert table["7522768627737627912"]["baseline_quality_three_months"] == "thin"
    assert table["7522768627737627912"]["views"] == "34100"

    # The console: "≈34.1K", no orange score, the thin baseline said in words.
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("127.0.0.1",
                                 5558)), base_url="http://testserver") as browser:
        r = await browser.post("/app/signin", data={"api_key": key, "next": "/app/outliers"})
        assert r.status_code == 303
        page = (await browser.get(f"/app/posts/{top['id']}")).text
    assert "≈34.1K" in page
    assert 'class="hot' not in page
    assert 'id="thin-baseline"' in page and "8 posts over 8 days" in page


async def test_goeduitjes_boosted_reel_is_flagged_with_its_numbers_and_both_counts_kept(
    db, client: httpx.AsyncClient, app, pg_url: str, tmp_path: Path
) -> None:
    imported(pg_url, tmp_path, str(GOEDUITJE), "--observed-at", "2025-09-04T13:39:02Z")
    await set_time(db, datetime(2025, 9, 4, 14, 0, tzinfo=UTC))
    _, key = await create_account(db, credits=50)
    owner = await _profile_id(db, "goeduitje")
    posts = await _posts_of(client, key, owner)
    # All 97 of the creator's own posts, not 13 of a word search.
    assert len(posts) == 97
    boosted = posts["DJECWzYsvLy"]
    # Plays score; the older, smaller video views are kept beside them.
    assert boosted["views"] == 9869 and boosted["other_view_counts"] == {"video_views": 1972}
    assert "views" not in boosted["approximations"]
    assert (boosted["likes"], boosted["comments"]) == (13, 0)
    assert boosted["outlier_scores"]["all_time"] > 10
    flag = boosted["engagement_anomaly"]
    assert flag is not None
    assert flag["engagement_rate"] == pytest.approx(13 / 9869, abs=1e-6)
    # The creator's usual, from their 79 reels: median ~2.9%, lowest tenth under ~1.6%.
    assert flag["post_count"] == 79
    assert flag["creator_median"] == pytest.approx(0.028871, abs=1e-5)
    assert flag["creator_p10"] == pytest.approx(0.015743, abs=1e-5)
    assert flag["creator_median_views"] == 470
    flagged = sorted(k for k, p in posts.items() if p["engagement_anomaly"])
    # Below a quarter of the median and the lowest tenth, on at least the usual views.
    assert flagged == ["DFxcSYYs75F", "DHp9s9AMGgE", "DJECWzYsvLy", "DK_rsArMIVj"]
    # A low-engagement reel on few views is not the boosted shape.
    assert posts["DKjZN19sPmv"]["engagement_anomaly"] is None
    kept = await _posts_of(client, key, owner, excludeEngagementAnomalies=True)
    assert len(kept) == 93 and "DJECWzYsvLy" not in kept
    [stored] = await rows(db, "SELECT engagement_anomaly, extra -> 'other_view_counts' AS o "
                              "FROM posts WHERE platform_post_id = 'DJECWzYsvLy'")
    assert stored == {"engagement_anomaly": True, "o": {"video_views": 1972}}

    # A collaborator known by one image post: "no videos yet", not "- over 0 posts".
    collaborator = await _profile_id(db, "guusvandenelzen")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("127.0.0.1",
                                 5559)), base_url="http://testserver") as browser:
        await browser.post("/app/signin", data={"api_key": key, "next": "/app/outliers"})
        page = (await browser.get(f"/app/profiles/{collaborator}")).text
        boosted_page = (await browser.get(f"/app/posts/{boosted['id']}")).text
    assert "no videos yet" in page and "hide their views: nothing to draw" in page
    assert 'id="engagement-anomaly"' in boosted_page and "0.13%" in boosted_page
    assert 'id="other-views"' in boosted_page and "2K video views" in boosted_page


async def test_an_analysis_of_the_boosted_reel_says_so_and_learns_from_no_flagged_post(
    db, pg_url: str, tmp_path: Path
) -> None:
    from sors.analyses.breakdown import breakdown
    from sors.analyses.summary import ANOMALY_NOTE

    OBSERVED = datetime(2025, 9, 4, 13, 39, 2, tzinfo=UTC)

    imported(pg_url, tmp_path, str(GOEDUITJE), "--observed-at", "2025-09-04T13:39:02Z")
    ids = {r["platform_post_id"]: r["id"] for r in await rows(
        db, "SELECT id, platform_post_id FROM posts")}
    async with db.session() as s:
        boosted = await breakdown(s, ids["DJECWzYsvLy"], now=OBSERVED)
        plain = await breakdown(s, ids["DKjZN19sPmv"], now=OBSERVED)
    assert boosted.summary.startswith(ANOMALY_NOTE)
    assert not plain.summary.startswith(ANOMALY_NOTE)
    # Its 96 fellow posts, less the 3 other flagged ones: never counted as outliers to copy.
    assert boosted.peerCount == 93
    assert plain.peerCount == 92
