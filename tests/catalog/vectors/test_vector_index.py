"""The index over all post vectors (catalog.vector_index): IVFFlat, built once there are
enough vectors to train it and rebuilt each time they have doubled, by a job the scheduler
queues once; a search reads it with a number of lists that follows from its size, and finds
what comparing every vector finds."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect

from sors.catalog.search import semantic, service
from sors.catalog.search.schemas import SearchContentIn
from sors.catalog.vectors import index as vector_index
from sors.catalog.vectors.schema import index_slug
from sors.keeper.schedule import vector_index_build
from sors.keeper.status import status
from sors.kit.db import driver
from tests.catalog.search.meaning.test_semantic import AT, publish, search, world
from tests.factories import create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import hand_crawl, hand_post, ingest, rows

pytestmark = pytest.mark.usefixtures("clean")
# The default model's vectors: what the world of tests.catalog.search.meaning embeds.
MODEL, DIMS = "use-m3:512", 512


@pytest.fixture(autouse=True)
async def no_index_left(db):
    """Each test starts and ends without a trained index (the test database is shared)."""
    await drop_indexes(db)
    yield
    await drop_indexes(db)


async def drop_indexes(db) -> None:
    async with db.transaction() as s:
        for name in await index_names(s):
            await s.execute(text(f'DROP INDEX IF EXISTS "{name}"'))
        await s.execute(text("UPDATE embedding_backfill SET index_name = NULL, "
                             "index_lists = NULL, index_rows = NULL, index_built_at = NULL"))


async def index_names(s) -> list[str]:
    return [r[0] for r in await s.execute(text(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'post_embeddings'::regclass "
        "AND a.amname = 'ivfflat' AND i.indisvalid ORDER BY 1"))]


async def more_posts(db, settings, n: int) -> None:
    """`n` more posts about baking, of a creator of their own."""
    posts = [replace(hand_post("flour.diary", i, AT - timedelta(days=30, minutes=i),
                               views=900 + 7 * i), caption=f"Bake day {i}: a loaf with {w} flour")
             for i, w in enumerate(["rye", "spelt", "whole wheat", "bread", "einkorn", "oat",
                                    "barley", "corn", "rice", "durum"] * (n // 10 + 1))][:n]
    await ingest(db, hand_crawl("flour.diary", posts, AT))
    await publish(db, settings)


async def state(db) -> dict:
    [r] = await rows(db, "SELECT index_name, index_lists, index_rows FROM embedding_backfill "
                         "WHERE model = :m", m=MODEL)
    return dict(r)


async def test_the_index_is_built_when_due_and_rebuilt_as_the_vectors_grow(
        db, settings) -> None:
    await world(db, settings)  # 16 vectors
    async with db.session() as s:
        assert not await vector_index.due(s, MODEL, train_at=17)
        assert await vector_index.due(s, MODEL, train_at=16)
    assert (await vector_index.train(db, MODEL, DIMS, train_at=17))["built"] is False
    # What a build that stopped half way leaves: an invalid index of the model's. It goes.
    leftover = f"ix_post_embeddings_ivf_{index_slug(MODEL, 24)}_stopped"
    async with db.transaction() as s:
        await s.execute(text(f"CREATE INDEX {leftover} ON post_embeddings (post_id)"))
        await s.execute(text("UPDATE pg_index SET indisvalid = false "
                             f"WHERE indexrelid = '{leftover}'::regclass"))
    built = await vector_index.train(db, MODEL, DIMS, train_at=16)
    [gone] = await rows(db, f"SELECT to_regclass('{leftover}') IS NULL AS gone")
    assert gone["gone"]
    assert built["built"] and built["lists"] == 10 and built["vectors"] == 16
    async with db.session() as s:
        assert await index_names(s) == [built["index"]]
        assert not await vector_index.due(s, MODEL, train_at=16)  # built on these 16
    assert await state(db) == {"index_name": built["index"], "index_lists": 10, "index_rows": 16}

    await more_posts(db, settings, 15)  # 31: under twice what it was built on
    async with db.session() as s:
        assert not await vector_index.due(s, MODEL, train_at=16)
    await more_posts(db, settings, 16)  # 32 (the creator's crawl keeps its first 15 posts)
    async with db.session() as s:
        assert await vector_index.due(s, MODEL, train_at=16)
    again = await vector_index.train(db, MODEL, DIMS, train_at=16)
    assert again["built"] and again["vectors"] == 32 and again["replaced"] == built["index"]
    async with db.session() as s:
        assert await index_names(s) == [again["index"]]  # the old one dropped
    assert (await state(db))["index_rows"] == 32

    # An index dropped by hand is made again, whatever it was built on.
    async with db.transaction() as s:
        await s.execute(text(f'DROP INDEX "{again["index"]}"'))
    async with db.session() as s:
        assert await vector_index.due(s, MODEL, train_at=16)


async def test_a_search_reads_the_index_with_probes_from_its_size_and_finds_the_exact_answer(
        db, client, settings) -> None:
    await world(db, settings)
    await more_posts(db, settings, 10)
    _, key = await create_account(db, credits=10)
    body = {"query": "baking bread at home", "semantic": True}
    exact = await search(client, key, **body)  # no index yet: every vector compared
    assert exact.status_code == 200, exact.text
    built = await vector_index.train(db, MODEL, DIMS, train_at=10)
    assert built["built"]
    f = service.content_filter(SearchContentIn(timeFrame="all_time"), AT)
    async with db.session() as s:
        await semantic.read_settings(s, MODEL)
        probes = (await s.execute(text("SHOW ivfflat.probes"))).scalar()
        assert int(probes) == max(semantic.MIN_PROBES, built["lists"] // semantic.PROBES_SHARE)
        assert (await s.execute(text("SHOW ivfflat.iterative_scan"))).scalar() == "relaxed_order"
        # The search's nearest-neighbour read, made to take the index: it does, and with
        # every list probed it finds what comparing every vector found.
        # (the other ways the planner has: reading every vector of the model and sorting)
        for way in ("seqscan", "bitmapscan", "sort"):
            await s.execute(text(f"SET LOCAL enable_{way} = off"))
        near = semantic._nearest(f, DIMS)
        compiled = select(near.c.id).compile(dialect=psycopg_dialect())
        pg = await driver(s)
        cur = await pg.execute("EXPLAIN " + str(compiled), {
            **compiled.params, **semantic.post_params(f),
            "qvec": "[" + ",".join(["0.0442"] * DIMS) + "]", "model": MODEL})
        plan = "\n".join(r[0] for r in await cur.fetchall())
        assert built["index"] in plan
        got = await service.search_content(s, SearchContentIn(
            query="baking bread at home", semantic=True, timeFrame="all_time"),
            now=AT, settings=settings)
    assert [p.id for p in got.results] == [p["id"] for p in exact.json()["results"]]


async def test_the_scheduler_queues_one_build_and_a_worker_makes_it(
        db, settings, runtime, monkeypatch) -> None:
    await world(db, settings)
    monkeypatch.setattr(vector_index, "TRAIN_AT", 16)
    monkeypatch.setattr(vector_index, "CHECK_EVERY", 0)
    await runtime.clock.refresh()  # what the scheduler does at each tick
    async with db.session() as s:  # what `sors catalog status` shows before
        meaning = (await status(s, runtime.now(), settings))["meaning"]
    assert meaning == {"model": MODEL, "vectors": 16, "waitingToEmbed": 0, "index": None,
                       "nextBuildAtVectors": 16}
    async with db.transaction() as s:
        assert await vector_index_build(s, runtime.now(), runtime) == 1
        assert await vector_index_build(s, runtime.now(), runtime) == 0  # the open job is the one
    [job] = await rows(db, "SELECT type, account_id, origin, credits_charged, payload "
                           "FROM jobs WHERE type = 'vector_index'")
    assert (job["account_id"], job["origin"], job["credits_charged"]) == (None, "catalog", 0)
    assert job["payload"] == {"model": MODEL, "dims": DIMS}
    assert await run_jobs_until_idle(runtime) == 1
    [done] = await rows(db, "SELECT status, result FROM jobs WHERE type = 'vector_index'")
    assert done["status"] == "completed" and done["result"]["built"], done
    async with db.session() as s:
        assert await index_names(s) == [done["result"]["index"]]
        meaning = (await status(s, runtime.now(), settings))["meaning"]
    assert meaning["index"]["name"] == done["result"]["index"]
    assert (meaning["index"]["lists"], meaning["index"]["builtOnVectors"],
            meaning["nextBuildAtVectors"]) == (10, 16, 32)
    async with db.transaction() as s:  # built: nothing due until the vectors double
        assert await vector_index_build(s, runtime.now(), runtime) == 0
        monkeypatch.setattr(vector_index, "CHECK_EVERY", 3600)
        await s.execute(text(f'DROP INDEX "{done["result"]["index"]}"'))
        assert await vector_index.due(s, MODEL)
        assert await vector_index_build(s, runtime.now(), runtime) == 0  # asked a moment ago
