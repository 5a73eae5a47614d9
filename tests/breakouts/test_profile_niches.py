"""profile_niches (migration 0016): each creator's main niche, stored for breakouts and kept
by triggers on profile_categories, equals what the categories say after every kind of write:
a crawl's rewrite, a niche that changes, an edited rank, categories removed, a truncate."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from sqlalchemy import text

from sors.demo.seed import seed_world
from tests.breakouts.test_breakouts import _baker
from tests.catalog.ingest.test_baselines import T, ingest

# The definition breakouts used to work out per request (and the reference still does).
DERIVED = """
SELECT DISTINCT ON (g.profile_id) g.profile_id, split_part(g.category_id, '.', 1)
FROM profile_categories g ORDER BY g.profile_id, g.rank, g.category_id
"""


async def _stored_and_derived(db) -> tuple[dict[str, str], dict[str, str]]:
    async with db.transaction() as s:
        stored = dict((await s.execute(text("SELECT * FROM profile_niches"))).all())
        derived = dict((await s.execute(text(DERIVED))).all())
    return stored, derived


async def _write(db, sql: str, **params: object) -> None:
    async with db.transaction() as s:
        await s.execute(text(sql), params)


async def test_the_stored_niche_follows_every_write_of_the_categories(db, settings, clean) -> None:
    await seed_world(db, settings=settings, profiles=12, seed=5, now=T)
    [baker] = await ingest(db, _baker("baker.one", 1, "Open crumb #crumbshot", 9_000))
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and len(stored) == 13
    assert stored[baker] == "food"
    # A re-crawl rewrites the creator's categories (delete, then insert): a new bio moves the
    # creator to another niche.
    snap = _baker("baker.one", 1, "Open crumb #crumbshot", 9_000)
    gym = dataclasses.replace(
        snap.profile, bio="Strength training, gym workouts and lifting every day",
        display_name="Lift",
    )
    posts = [dataclasses.replace(p, caption="Leg day at the gym #workout") for p in snap.posts]
    await ingest(db, dataclasses.replace(
        snap, profile=gym, posts=posts, fetched_at=T + timedelta(days=1)))
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and stored[baker] != "food"
    now = stored[baker]
    # A category added below the main one changes nothing; an edited rank makes it the main
    # one; equal ranks leave it to the lower id.
    await _write(db, "INSERT INTO profile_categories (profile_id, category_id, rank) "
                 "VALUES (:p, 'beauty.skincare', 50)", p=baker)
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and stored[baker] == now
    await _write(db, "UPDATE profile_categories SET rank = -1 WHERE profile_id = :p "
                 "AND category_id = 'beauty.skincare'", p=baker)
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and stored[baker] == "beauty"
    await _write(db, "UPDATE profile_categories SET rank = 0 WHERE profile_id = :p", p=baker)
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and stored[baker] == min("beauty", now)
    # No categories left: no niche (breakouts group the creator under none).
    await _write(db, "DELETE FROM profile_categories WHERE profile_id = :p", p=baker)
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and baker not in stored
    await _write(db, "INSERT INTO profile_categories (profile_id, category_id, rank) "
                 "VALUES (:p, 'food.baking', 3)", p=baker)
    stored, derived = await _stored_and_derived(db)
    assert stored == derived and stored[baker] == "food"
    await _write(db, "TRUNCATE profile_categories")
    assert await _stored_and_derived(db) == ({}, {})

