"""A freshly built demo world has rising posts: the build watches a few creators closely
(young-post refreshes, sors.demo.watched) and computes their curves before the crawl at the
world's moment, so `POST /trends/rising` and the console's Rising page answer from the
start, through HTTP, with a post above its creator's p90 and accelerating; a fading spike
of the same history is not rising.

The world is the default one (seed 0, the demo's moment) cut to its first PROFILES
handles: the smallest that holds an early breakout taking off at that moment (a longer
sample starts with the shorter one, so the default world holds it too). Only its watched
creators are built: the others add nothing rising."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.billing.pricing import get_pricing
from sors.catalog.ingest.trajectory import RISING_MIN_VS_MEDIAN
from sors.demo import worldbuild
from sors.kit.db import Database
from sors.platforms.sim import clock as sim_clock
from sors.platforms.sim.world import SimWorld
from sors.rising.schemas import Rising
from tests.conftest import KEEP_TABLES
from tests.console.conftest import sign_in
from tests.factories import auth, balance_and_ledger_sum, create_account, reset_tables
from tests.factories.world import set_time

AT = datetime(2026, 9, 22, 10, tzinfo=UTC)  # DEMO_START: a new demo's moment
PROFILES = 266


@pytest.fixture(scope="module")
async def built(app: Any, db: Database) -> AsyncIterator[worldbuild.BuildState]:
    """The planned world's watched creators, built as the demo builds them (the other
    creators of the plan have no history at young ages: no curve, nothing rising)."""
    await reset_tables(db, KEEP_TABLES)
    async with db.transaction() as s:
        await sim_clock.ensure_state(s, seed=0, at=AT)
        await sim_clock.set_time(s, AT)
        planned = await worldbuild.plan(s, seed=0, profiles=PROFILES, at=AT)
    order = worldbuild._order(0, PROFILES, AT)
    state = await worldbuild._one_batch(db, planned, sorted(order.watched), order.watched)
    assert state.ready == len(order.watched)
    await set_time(db, AT)
    yield state
    await reset_tables(db, KEEP_TABLES)


@pytest.fixture
async def client(app: Any, built: worldbuild.BuildState) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5611))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def test_a_fresh_demo_world_answers_trends_rising_with_a_post_above_p90_and_accelerating(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/trends/rising", json={}, headers=auth(key))
    assert r.status_code == 200, r.text
    assert r.headers["X-Credits-Charged"] == str(get_pricing().cost("find_rising_posts"))
    body = r.json()
    Rising.model_validate(body)  # the body is what the document says
    assert body["generatedAt"] == "2026-09-22T10:00:00Z" and body["maxAgeHours"] == 72
    posts = body["posts"]
    assert posts, "the demo's world has rising posts at its moment"
    assert len({p["profile_id"] for p in posts}) == len(posts)  # one per creator
    for p in posts:
        proj = p["projection"]
        assert proj["rising"] is True and proj["accelerating"] is True
        assert proj["percentile_now"] > 90 and proj["vs_median_now"] >= RISING_MIN_VS_MEDIAN
        assert p["views"] > proj["expected_views_now"]["p90"]
        assert 0 < proj["age_hours"] <= 72
        # Its curve band (the creator's p10-p90 by age) and its own snapshots, for a chart.
        ages = [c["ageHours"] for c in p["curve"]]
        assert ages and ages == sorted(ages) and all(c["p10"] <= c["p50"] <= c["p90"]
                                                    for c in p["curve"])
        assert len(p["snapshots"]) >= 3
        assert p["snapshots"][-1] == {"ageHours": proj["age_hours"], "views": p["views"]}
    balance, ledger = await balance_and_ledger_sum(db, account_id)
    assert balance == ledger == 100 - get_pricing().cost("find_rising_posts")


async def test_the_demo_history_holds_young_posts_in_each_shape_and_a_fading_spike_is_not_rising(
    built: worldbuild.BuildState, db: Database
) -> None:
    order = worldbuild._order(0, PROFILES, AT)
    async with db.session() as s:
        rows = (await s.execute(text("""
            SELECT p.extra ->> 'sim_shape' AS shape, p.rising, p.projection,
                   (SELECT count(*) FROM post_stats st WHERE st.post_id = p.id) AS snapshots
              FROM posts p JOIN profiles pr ON pr.id = p.profile_id
             WHERE p.published_at > :at - interval '72 hours'
               AND (pr.platform, pr.handle) IN (SELECT * FROM unnest(
                    CAST(:platforms AS text[]), CAST(:handles AS text[])))"""),
            {"at": AT, "platforms": [p for p, _ in order.watched],
             "handles": [h for _, h in order.watched]})).mappings().all()
    # Young posts of every shape of the simulated trajectories, each looked at several times.
    assert {r["shape"] for r in rows if r["snapshots"] >= 3} == {
        "standard", "slow_start", "plateau", "fading_spike", "second_push", "early_breakout",
        "late_takeoff", "steady_growth"}
    projected = [r for r in rows if r["projection"] is not None]
    assert any(r["rising"] and r["shape"] == "early_breakout" for r in projected)
    spikes = [r for r in projected if r["shape"] == "fading_spike"]
    assert spikes and not any(r["rising"] for r in spikes)
    # Past its spike: above the creator's median at its age, but not accelerating.
    assert any(r["projection"]["accelerating"] is False and r["projection"]["vs_median_now"] > 1
               for r in spikes)
    # Only the watched creators' history is crawled at young ages: a few per world.
    assert 0 < len(order.watched) <= 12
    world = SimWorld(0)
    async with db.session() as s:
        crawled = dict((await s.execute(text("""
            SELECT pr.handle, count(DISTINCT st.crawled_at) FROM profiles pr
              JOIN posts p ON p.profile_id = pr.id JOIN post_stats st ON st.post_id = p.id
             GROUP BY pr.handle"""))).all())
    for platform, handle in order.watched:
        times = worldbuild.crawl_times(world, platform, handle, AT, watch=True)
        assert crawled[handle] == len(times) + 1  # each refresh, and the crawl at AT


async def test_the_console_rising_page_shows_the_demos_rising_post_against_its_band(
    app: Any, client: httpx.AsyncClient, db: Database
) -> None:
    _, key = await create_account(db, credits=100)
    api = await client.post("/api/v1/trends/rising", json={}, headers=auth(key))
    first = api.json()["posts"][0]
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5612))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        await sign_in(c, key)
        r = await c.get("/app/rising", params={"go": "1"})
    assert r.status_code == 200, r.text
    assert f'id="post-{first["id"]}"' in r.text and first["handle"] in r.text
    assert '<svg class="chart"' in r.text and 'class="band"' in r.text
    assert 'class="median"' in r.text and 'class="line"' in r.text
