"""The simulated world's YouTube creators count long-form views from the first frame after
2026-08-24, higher by a factor of each creator's (sors.platforms.sim.posts): their newer
videos are scored against their newer videos, and the score says which baseline it used
and how far views jumped across the change."""

from __future__ import annotations

from statistics import median

from sors.platforms.sim.posts import FIRST_FRAME_FACTOR
from tests.catalog.conftest import World
from tests.catalog.helpers import all_pages, close

CHANGE = "2026-08-24"


async def test_a_long_form_video_after_the_change_is_not_an_outlier_by_definition(
    world: World,
) -> None:
    posts = await all_pages(world, "/search/content", {
        "platforms": ["youtube"], "contentTypes": ["video"], "timeFrame": "all_time"})
    after = [p for p in posts if p["published_at"] >= CHANGE and p["deleted_at"] is None
             and p["views"] is not None]
    crossed = [p for p in after if p["score_baselines"]["all_time"]["crosses_change"]]
    assert len(crossed) >= 10
    own, mixed, ratios = [], [], []
    for p in crossed:
        assert p["view_epoch"] == {"definition": "first_frame", "since": CHANGE, "until": None}
        b = p["score_baselines"]["all_time"]
        c = b["crosses_change"]
        # The baseline it used: the creator's first-frame videos, the older ones left out.
        assert b["view_definition"] == "first_frame"
        assert c["definition"] == "engaged" and c["changed_on"] == CHANGE
        if b["views"] and c["views"]:
            assert close(p["outlier_scores"]["all_time"], p["views"] / b["views"])
            assert close(c["views_ratio"], b["views"] / c["views"], rel=1e-3)
            own.append(p["views"] / b["views"])
            mixed.append(p["views"] / c["views"])
            if b["post_count"] >= 10 and c["post_count"] >= 10:
                ratios.append(c["views_ratio"])
    # Against its own definition a typical new video is typical (about 1x); against the
    # creator's older counts it would read inflated by the creator's jump.
    assert 0.5 < median(own) < 1.5, median(own)
    assert median(mixed) > median(own) * 1.15
    low, high = FIRST_FRAME_FACTOR
    assert ratios and low * 0.6 < median(ratios) < high * 1.6, ratios


async def test_an_older_video_is_scored_against_the_older_definition(world: World) -> None:
    posts = await all_pages(world, "/search/content", {
        "platforms": ["youtube"], "contentTypes": ["video", "live"], "timeFrame": "all_time"})
    before = [p for p in posts if p["published_at"] < CHANGE]
    assert before
    for p in before:
        assert p["view_epoch"]["definition"] == "engaged"
        assert p["view_epoch"]["until"] == CHANGE
        for b in p["score_baselines"].values():
            assert b["view_definition"] == "engaged"
