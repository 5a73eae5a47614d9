"""POST /trends/breakouts over a hand-made niche: a hashtag three baking creators each turned
into an outlier is found; one that only one creator rides is not."""

from __future__ import annotations

import dataclasses
import statistics
from datetime import timedelta

from sqlalchemy import text

from sors.platforms.base import CrawlSnapshot
from sors.platforms.sim.clock import set_time
from tests.catalog.ingest.test_baselines import T, ingest, post, profile
from tests.factories import auth, create_account

BIO = "Sourdough baking and bread recipes at home"


def _baker(handle: str, n: int, hit_caption: str, hit_views: int) -> CrawlSnapshot:
    base = [
        post("tiktok", f"75{n:02d}00000000000{i:03d}", T - timedelta(days=5 + 4 * i),
             1_000 + 10 * i)
        for i in range(6)
    ]
    hit = post("tiktok", f"75{n:02d}00000000000999", T - timedelta(days=3), hit_views)
    hit = dataclasses.replace(hit, caption=hit_caption)
    prof = profile("tiktok", handle)
    prof = dataclasses.replace(prof, bio=BIO)
    return CrawlSnapshot(prof, [*base, hit], T)


async def _world_at_t(db, app, snaps: list[CrawlSnapshot]) -> str:
    """The crawls stored, the simulated clock at T; an API key with 100 credits."""
    for snap in snaps:
        await ingest(db, snap)
    async with db.transaction() as s:
        await set_time(s, T)
    _, key = await create_account(db, credits=100)
    return key


async def test_a_shared_hashtag_breaks_out_and_a_solo_one_does_not(db, app, client) -> None:
    snaps = [
        _baker("baker.one", 1, "Open crumb at last #crumbshot #sourdough", 9_000),
        _baker("baker.two", 2, "My best loaf #crumbshot", 6_000),
        _baker("baker.three", 3, "Tried the trick #CrumbShot", 12_000),
        # Hot for one creator only, however high.
        _baker("baker.solo", 4, "Only mine #solohype", 50_000),
        _baker("baker.solo2", 5, "Steady one #crumbshot", 1_050),  # not an outlier: no count
    ]
    key = await _world_at_t(db, app, snaps)
    h = auth(key)
    r = await client.post(
        "/api/v1/trends/breakouts",
        json={"timeFrame": "one_week", "kinds": ["hashtag"]},
        headers=h,
    )
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "2"
    body = r.json()
    ideas = {b["idea"]: b for b in body["breakouts"]}
    assert "solohype" not in ideas and "sourdough" not in ideas
    crumb = ideas["crumbshot"]
    assert crumb["kind"] == "hashtag" and crumb["creatorCount"] == 3 and crumb["postCount"] == 3
    scores = [p["outlier_scores"]["three_months"] for p in crumb["evidence"]]
    assert scores == sorted(scores, reverse=True) and min(scores) >= 3
    assert {p["handle"] for p in crumb["evidence"]} == {"baker.one", "baker.two", "baker.three"}
    assert crumb["medianScore"] == round(statistics.median(scores), 4)
    assert crumb["firstPost"]["published_at"] <= crumb["latestPost"]["published_at"]
    # Two creators are not enough at minCreators 4; a lower bar finds nothing new for solo.
    more = await client.post(
        "/api/v1/trends/breakouts", json={"minCreators": 4, "timeFrame": "one_week"}, headers=h
    )
    assert all(b["creatorCount"] >= 4 for b in more.json()["breakouts"])
    assert "crumbshot" not in {b["idea"] for b in more.json()["breakouts"]}
    two = await client.post(
        "/api/v1/trends/breakouts",
        json={"minCreators": 2, "timeFrame": "one_week", "kinds": ["hashtag"]},
        headers=h,
    )
    assert "solohype" not in {b["idea"] for b in two.json()["breakouts"]}
    # Formats come out too: four TikTok video creators had an outlier.
    formats = await client.post(
        "/api/v1/trends/breakouts", json={"kinds": ["format"], "timeFrame": "one_week"}, headers=h
    )
    [fmt] = formats.json()["breakouts"]
    assert fmt["idea"] == "tiktok:video" and fmt["creatorCount"] == 4
    bad = await client.post("/api/v1/trends/breakouts", json={"minCreators": 1}, headers=h)
    assert bad.status_code == 422 and bad.headers["x-credits-charged"] == "0"


def _creator(handle: str, n: int, bio: str, usual: str, hit: str) -> CrawlSnapshot:
    snap = _baker(handle, n, hit, 9_000)
    posts = [p if p.platform_post_id.endswith("999") else dataclasses.replace(p, caption=usual)
             for p in snap.posts]
    return dataclasses.replace(snap, profile=dataclasses.replace(snap.profile, bio=bio),
                               posts=posts)


COFFEE = "Specialty coffee, espresso and latte art at home"
ELSEWHERE = [
    "Home workouts, gym and fitness tips",
    "Gaming every night: gamer life, console and controller reviews",
    "Travel vlogs: trip planning, vacation and wanderlust",
    "Tech reviews and technology news, techtok",
]


async def test_ideas_rank_by_lift_with_both_shares_and_platform_wide_filler_is_dropped(
    db, app, client
) -> None:
    # Four coffee creators: every post of theirs carries #latte; three of the four hits say
    # "cold brew". Every niche's hits carry #fyp (platform-wide filler).
    snaps = [
        _creator(f"brew.{i}", 60 + i, COFFEE, "Morning latte again #latte #coffee #fyp",
                 "Cold brew steeped overnight #coldbrew #latte #fyp" if i < 3
                 else "Another latte #latte #fyp")
        for i in range(4)
    ]
    snaps += [_creator(f"else.{i}", 70 + i, bio, "Just a day #daily", "Big day #fyp #daily")
              for i, bio in enumerate(ELSEWHERE)]
    key = await _world_at_t(db, app, snaps)
    r = await client.post("/api/v1/trends/breakouts", headers=auth(key), json={
        "timeFrame": "one_month", "categoryId": "food.coffee", "kinds": ["hashtag", "format"]})
    assert r.status_code == 200, r.text
    got = [(b["kind"], b["idea"]) for b in r.json()["breakouts"]]
    # #fyp and tiktok:video are in every niche's outliers: filler, left out.
    assert got == [("hashtag", "coldbrew"), ("hashtag", "latte")], got
    cold, latte = r.json()["breakouts"]
    # Outliers: 4 posts, 3 with #coldbrew, 4 with #latte. Ordinary: the creators' 24 other
    # posts of the month, none with #coldbrew, all with #latte.
    assert (cold["outlierShare"], cold["ordinaryShare"]) == (0.75, 0.0)
    assert cold["lift"] == round(0.75 / (1 / 25), 4)
    assert (latte["outlierShare"], latte["ordinaryShare"], latte["lift"]) == (1.0, 1.0, 1.0)
    assert cold["creatorCount"] == 3 and latte["creatorCount"] == 4
    # Without the category: the coffee group is labelled with the creators' main niche, and
    # the filler stays out there too.
    r = await client.post("/api/v1/trends/breakouts", headers=auth(key), json={
        "timeFrame": "one_month", "kinds": ["hashtag", "format"]})
    ideas = [(b["idea"], b["categoryId"]) for b in r.json()["breakouts"]]
    assert ideas[0] == ("coldbrew", "food") and "fyp" not in {i for i, _ in ideas}
    assert "tiktok:video" not in {i for i, _ in ideas}


async def test_the_catalogs_boilerplate_never_leads_breakouts(db, app, client) -> None:
    # Three bakers each turned #crumbshot into an outlier, and each hit also carries
    # #photomode: a breakout until the catalog's boilerplate (catalog.usage.boilerplate)
    # names #photomode, then gone; #crumbshot stays.
    snaps = [
        _baker(f"baker.p{i}", 80 + i, f"Crumb {i} #crumbshot #photomode", 9_000 + 1_000 * i)
        for i in range(3)
    ]
    key = await _world_at_t(db, app, snaps)
    body = {"timeFrame": "one_week", "kinds": ["hashtag"]}

    async def ideas() -> set[str]:
        r = await client.post("/api/v1/trends/breakouts", json=body, headers=auth(key))
        assert r.status_code == 200, r.text
        return {b["idea"] for b in r.json()["breakouts"]}

    assert {"crumbshot", "photomode"} <= await ideas()
    async with db.transaction() as s:
        await s.execute(text(
            "INSERT INTO idea_boilerplate (kind, idea, population, niches, share, computed_at) "
            "VALUES ('hashtag', 'photomode', 'tiktok:slideshow', 6, 0.4, now())"))
    found = await ideas()
    assert "crumbshot" in found and "photomode" not in found
