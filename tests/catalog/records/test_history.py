"""A post's stat history through HTTP, over repeated crawls of the simulated world (what a
monitoring refresh ingests as simulated time passes), checked against the world's own
counters."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.platforms.sim.clock import set_time
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, create_account

# The shared simulated clock is put back after each test.
pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 9, 1, 0, 0, tzinfo=UTC)
STEP = timedelta(hours=6)
CRAWLS = 13  # three days


def _pick(world: SimWorld) -> tuple[str, str, datetime]:
    """A handle with a post published inside the crawled span early enough for its 24 h
    age to fall between two later crawls (the world is deterministic)."""
    end = T0 + STEP * (CRAWLS - 1)
    for i in range(50):
        handle = f"history.check{i}"
        snap = world.crawl("tiktok", handle, end)
        for p in snap.posts:
            if T0 + timedelta(hours=1) < p.published_at < end - timedelta(hours=30):
                return handle, p.platform_post_id, p.published_at
    raise AssertionError("no handle with a fresh post")


async def test_history_grows_and_interpolates_like_the_world(
    db, client: httpx.AsyncClient
) -> None:
    world = SimWorld(0)
    handle, platform_post_id, published = _pick(world)
    for k in range(CRAWLS):
        at = T0 + STEP * k
        async with db.transaction() as s:
            await ingest_crawls(s, [world.crawl("tiktok", handle, at)])
    end = T0 + STEP * (CRAWLS - 1)
    async with db.transaction() as s:
        await set_time(s, end)
        post_id = (
            await s.execute(
                text("SELECT id FROM posts WHERE platform_post_id = :p"), {"p": platform_post_id}
            )
        ).scalar_one()
    _, key = await create_account(db, credits=100)
    h = auth(key)
    r = await client.get(f"/api/v1/posts/{post_id}/history", headers=h)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "1"
    hist = r.json()
    snaps = hist["snapshots"]
    assert len(snaps) == hist["snapshotCount"] >= 4
    views = [s["views"] for s in snaps]
    assert views == sorted(views) and views[-1] > views[0]  # views only grow
    for prev, cur in itertools.pairwise(snaps):
        assert cur["ageHours"] > prev["ageHours"]
        rate = (cur["views"] - prev["views"]) / (cur["ageHours"] - prev["ageHours"])
        assert cur["viewsPerHour"] == pytest.approx(rate, rel=1e-3, abs=0.01)
    assert snaps[0]["viewsPerHour"] is None
    # The 24 h milestone sits between two snapshots: interpolated, and close to the world's
    # own counter at exactly that age (views grow concavely, so the line is a bit below).
    m24 = next(m for m in hist["milestones"] if m["age"] == "24h")
    assert m24["interpolated"] is True
    truth = next(
        p.views
        for p in world.crawl("tiktok", handle, published + timedelta(hours=24)).posts
        if p.platform_post_id == platform_post_id
    )
    assert m24["views"] == pytest.approx(truth, rel=0.03)
    assert m24["views"] <= truth + 1
    m7d = next(m for m in hist["milestones"] if m["age"] == "7d")
    assert m7d["views"] is None and m7d["interpolated"] is None  # not reached yet
    # get_post's growth block agrees with the history.
    rec = (await client.get(f"/api/v1/posts/{post_id}", headers=h)).json()
    assert rec["growth"]["snapshot_count"] == len(snaps)
    assert rec["growth"]["age_hours"] == pytest.approx(hist["ageHours"])
    assert rec["growth"]["views_per_hour_24h"] == rec["velocity"] == hist["viewsPerHour24h"]
    # Velocity: the views of the last 24 h, the older end read off the line between the
    # snapshots around it (here a snapshot sits exactly 24 h before the last crawl).
    if snaps[-1]["ageHours"] >= 24:
        day_ago = next(s for s in snaps if s["crawledAt"] == _iso(end - timedelta(hours=24)))
        assert rec["velocity"] == pytest.approx((views[-1] - day_ago["views"]) / 24, abs=0.01)
    missing = await client.get("/api/v1/posts/pst_nope/history", headers=h)
    assert missing.status_code == 404 and missing.headers["x-credits-charged"] == "0"


def _iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


async def test_the_demo_seed_starts_with_history(
    db, settings, client: httpx.AsyncClient
) -> None:
    from sors.cli.sim import DEMO_HISTORY
    from sors.demo.seed import seed_world

    now = datetime(2026, 9, 22, 10, 0, tzinfo=UTC)
    result = await seed_world(db, settings=settings, profiles=12, seed=5, now=now,
                              history=DEMO_HISTORY)
    assert result.profiles == 12
    async with db.session() as s:
        row = (
            await s.execute(
                text(
                    "SELECT count(*) FILTER (WHERE n >= 2) AS with_history, count(*) AS posts,"
                    " max(n) AS most FROM (SELECT p.id, count(st.post_id) AS n FROM posts p"
                    " JOIN post_stats st ON st.post_id = p.id GROUP BY p.id) x"
                )
            )
        ).one()
        scored = (
            await s.execute(
                text(
                    "SELECT count(*) FILTER (WHERE age_score IS NOT NULL),"
                    " count(*) FILTER (WHERE velocity IS NOT NULL) FROM posts"
                )
            )
        ).one()
    assert row.most == len(DEMO_HISTORY) + 1
    assert row.with_history > row.posts / 2  # most posts were seen before "now"
    assert scored[0] > 0 and scored[1] > row.posts / 2


async def test_history_from_monitoring_refreshes(db, runtime, settings, client) -> None:
    """The real path: a tracked profile, the simulated clock moved a day at a time and the
    scheduler run (what `sors sim clock advance 1d` + `sors scheduler run-once` do)."""
    from tests.factories.world import run_once, seed_profile
    from tests.factories.world import set_time as move_clock

    t0 = datetime(2026, 10, 5, 6, 0, tzinfo=UTC)
    world = SimWorld(settings.sim.seed)
    handle = next(
        f"refresh.history{i}"
        for i in range(50)
        if any(
            t0 < p.published_at < t0 + timedelta(hours=20)
            for p in world.crawl("tiktok", f"refresh.history{i}", t0 + timedelta(days=3)).posts
        )
    )
    await move_clock(db, t0)
    pid = await seed_profile(db, "tiktok", handle, t0)
    _, key = await create_account(db, credits=1_000)
    h = auth(key)
    r = await client.post(
        "/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=h
    )
    assert r.status_code in (200, 201), r.text
    for day in range(1, 4):
        await move_clock(db, t0 + timedelta(days=day))
        await run_once(runtime)
    async with db.session() as s:
        post_id, ppid, published = (
            await s.execute(
                text(
                    "SELECT p.id, p.platform_post_id, p.published_at FROM posts p"
                    " WHERE p.profile_id = :pid AND p.published_at > :t0"
                    " ORDER BY p.published_at LIMIT 1"
                ),
                {"pid": pid, "t0": t0},
            )
        ).one()
    hist = (await client.get(f"/api/v1/posts/{post_id}/history", headers=h)).json()
    snaps = hist["snapshots"]
    assert len(snaps) >= 3  # seen at each daily refresh after publication
    views = [s["views"] for s in snaps]
    assert views == sorted(views) and views[-1] > views[0]
    for prev, cur in itertools.pairwise(snaps):
        rate = (cur["views"] - prev["views"]) / (cur["ageHours"] - prev["ageHours"])
        assert cur["viewsPerHour"] == pytest.approx(rate, rel=1e-3, abs=0.01)
    m24 = next(m for m in hist["milestones"] if m["age"] == "24h")
    truth = next(
        p.views
        for p in world.crawl("tiktok", handle, published + timedelta(hours=24)).posts
        if p.platform_post_id == ppid
    )
    # Daily snapshots around 24 h: the chord lies under the concave growth curve.
    assert m24["interpolated"] is True
    assert m24["views"] <= truth + 1
    assert m24["views"] == pytest.approx(truth, rel=0.15)


async def test_milestones_across_a_long_gap_are_measured_or_null_never_drawn_from_publication(
    db, app, client: httpx.AsyncClient
) -> None:
    from tests.factories.world import hand_crawl, hand_post, ingest
    from tests.factories.world import set_time as move_clock

    now = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
    late = now - timedelta(hours=400)  # first seen 367 h after publishing
    early = now - timedelta(hours=100)  # first seen 2 h after publishing
    for at, views_late, views_early in (
        (late + timedelta(hours=367), 3300, None),
        (early + timedelta(hours=2), 3400, 100),
        (early + timedelta(hours=30), 3500, 1000),
    ):
        posts = [hand_post("gap.check", 1, late, views=views_late)]
        if views_early is not None:
            posts.append(hand_post("gap.check", 2, early, views=views_early))
        await ingest(db, hand_crawl("gap.check", posts, at))
    await move_clock(db, now)
    _, key = await create_account(db, credits=100)
    h = auth(key)

    async def milestones(n: int) -> dict[str, dict]:
        post_id = await _post_id(db, n)
        r = await client.get(f"/api/v1/posts/{post_id}/history", headers=h)
        assert r.status_code == 200, r.text
        return {m["age"]: m for m in r.json()["milestones"]}

    gap = await milestones(1)
    for age in ("1h", "24h", "7d"):
        assert gap[age]["views"] is None and gap[age]["interpolated"] is None
        assert gap[age]["reason"] == "first_snapshot_too_late"
    fresh = await milestones(2)
    # Publication anchors the 1 h point: the first snapshot came 2 h after it.
    assert fresh["1h"] == {"age": "1h", "ageHours": 1.0, "views": 50.0, "interpolated": True,
                           "reason": None}
    # 24 h lies between two real snapshots (2 h: 100, 30 h: 1000).
    assert fresh["24h"]["views"] == pytest.approx(100 + 900 * 22 / 28, abs=0.1)
    assert fresh["24h"]["reason"] is None
    # The post is 100 h old: 7 days has not come yet.
    assert fresh["7d"]["views"] is None and fresh["7d"]["reason"] == "not_reached"


async def _post_id(db, n: int) -> str:
    async with db.session() as s:
        return (
            await s.execute(
                text("SELECT id FROM posts WHERE caption = :c"), {"c": f"post {n} by gap.check"}
            )
        ).scalar_one()
