"""Search by meaning: `semantic: true` finds paraphrases that words alone miss, `similarTo`
finds posts about the same thing (never the post itself, nor its creator unless asked),
filters and paging hold, and a server without pgvector answers 503 and nothing else breaks."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from tests.factories import auth, create_account
from tests.factories.world import hand_crawl, hand_post, ingest, rows

pytestmark = pytest.mark.usefixtures("clean")

AT = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
CAPTIONS = {
    "crust.baker": ["How I bake crusty bread at home", "My sourdough loaf finally rose",
                    "Kneading dough by hand for a soft loaf",
                    "Croissants from scratch, layer by layer"],
    "daily.grind": ["Pulling the perfect espresso shot", "Latte art for beginners",
                    "Cold brew that is never bitter", "Which grinder for pour over coffee"],
    "good.pup": ["My puppy learned to sit in one day", "Walking a reactive dog calmly",
                 "The treat that makes my dog listen", "Crate training without tears"],
    "oven.only": ["Three breads I bake every week", "Rye loaf with a dark crust",
                  "Focaccia dimples explained", "Banana bread that stays moist"],
}


async def publish(db, settings) -> None:
    """What the scheduler's next tick does: written vectors go under the search index."""
    from sors.catalog.vectors import embeddings

    async with db.transaction() as s:
        while await embeddings.embed_pending(s, settings):
            pass


async def world(db, settings) -> dict[str, list[str]]:
    """Four creators, four posts each, captions written as people write them."""
    ids: dict[str, list[str]] = {}
    for k, (handle, captions) in enumerate(CAPTIONS.items()):
        # Distinct times per creator: a hand-made post's id comes from its time.
        posts = [replace(hand_post(handle, i, AT - timedelta(days=10 - i, hours=k),
                                   views=1000 + 10 * i), caption=c)
                 for i, c in enumerate(captions)]
        await ingest(db, hand_crawl(handle, posts, AT))
        found = await rows(db, "SELECT p.id FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
                               "WHERE pr.handle = :h ORDER BY p.published_at", h=handle)
        ids[handle] = [r["id"] for r in found]
    await publish(db, settings)
    return ids


async def search(client: httpx.AsyncClient, key: str, **body: Any) -> httpx.Response:
    return await client.post("/api/v1/search/content", headers=auth(key),
                             json={"timeFrame": "all_time", **body})


async def test_every_ingested_post_is_embedded_with_the_model_key(db, settings) -> None:
    await world(db, settings)
    [r] = await rows(db, "SELECT count(*) AS n, min(model) AS model, "
                         "min(vector_dims(embedding)) AS dims, "
                         "max(abs(vector_norm(embedding) - 1)) AS off FROM post_embeddings")
    assert r["off"] < 1e-4  # unit vectors, as written in binary
    assert {k: r[k] for k in ("n", "model", "dims")} == {"n": 16, "model": "use-m3:512",
                                                         "dims": 512}


async def test_a_paraphrase_finds_the_right_posts_by_meaning_and_not_by_words(
        db, settings, client) -> None:
    await world(db, settings)
    _, key = await create_account(db, credits=10)
    words = (await search(client, key, query="bread baking tutorial")).json()
    assert words["total"] == 0  # no caption holds all three words
    r = await search(client, key, query="bread baking tutorial", semantic=True, pageSize=4)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "1"  # the price of a search
    top = r.json()["results"]
    assert {p["handle"] for p in top[:3]} <= {"crust.baker", "oven.only"}
    assert all(p["similarity"] is not None for p in top[:3])
    assert top[0]["similarity"] >= top[-1]["similarity"] or top[-1]["similarity"] is None


async def test_similar_to_excludes_the_post_and_its_creator_unless_asked(
        db, settings, client) -> None:
    ids = await world(db, settings)
    _, key = await create_account(db, credits=10)
    espresso = ids["daily.grind"][0]
    r = await search(client, key, similarTo=espresso, pageSize=5)
    assert r.status_code == 200, r.text
    found = r.json()["results"]
    assert espresso not in [p["id"] for p in found]
    assert "daily.grind" not in {p["handle"] for p in found}
    sims = [p["similarity"] for p in found]
    assert sims == sorted(sims, reverse=True)
    mine = (await search(client, key, similarTo=espresso, includeSameCreator=True,
                         pageSize=3)).json()["results"]
    # The creator's own coffee posts come back among the nearest, the post itself never.
    assert mine[0]["handle"] == "daily.grind"
    assert espresso not in [p["id"] for p in mine]


async def test_filters_and_paging_hold(db, settings, client) -> None:
    ids = await world(db, settings)
    _, key = await create_account(db, credits=10)
    first = (await search(client, key, query="loaf of bread", semantic=True, pageSize=3)).json()
    second = (await search(client, key, query="loaf of bread", semantic=True, pageSize=3,
                           page=2)).json()
    a, b = [p["id"] for p in first["results"]], [p["id"] for p in second["results"]]
    assert len(a) == 3 and not set(a) & set(b) and first["hasMore"] is True
    assert first["total"] == second["total"] >= 6
    few = (await search(client, key, query="loaf of bread", semantic=True,
                        minViews=1025)).json()["results"]
    assert few and all(p["views"] >= 1025 for p in few)
    nothing = (await search(client, key, similarTo=ids["good.pup"][0],
                            platforms=["youtube"])).json()
    assert nothing["results"] == [] and nothing["total"] == 0


async def test_bad_combinations_are_422_and_unknown_posts_404(db, client) -> None:
    _, key = await create_account(db, credits=10)
    for body in ({"semantic": True}, {"semantic": True, "query": "x", "similarTo": "pst_x"},
                 {"includeSameCreator": True}):
        r = await search(client, key, **body)
        assert r.status_code == 422, (body, r.text)
    r = await search(client, key, similarTo="pst_nope")
    assert r.status_code == 404 and r.json()["code"] == "post_not_found"


async def test_a_pgvector_older_than_needed_is_503_naming_both_versions(
        db, settings, client, monkeypatch) -> None:
    from sors.catalog.vectors import embeddings

    await world(db, settings)
    _, key = await create_account(db, credits=10)
    embeddings.forget_availability()
    monkeypatch.setattr(embeddings, "MIN_PGVECTOR", (99, 1))  # newer than the one installed
    try:
        r = await search(client, key, query="bread baking tutorial", semantic=True)
        assert r.status_code == 503 and r.json()["code"] == "semantic_unavailable"
        [installed] = await rows(db, "SELECT extversion AS v FROM pg_extension "
                                     "WHERE extname = 'vector'")
        assert f"pgvector is {installed['v']}" in r.json()["detail"]
        assert "needs 99.1 or later" in r.json()["detail"]
        assert r.headers["x-credits-charged"] == "0"
        assert (await search(client, key, query="bread")).status_code == 200
    finally:
        embeddings.forget_availability()
    monkeypatch.setattr(embeddings, "MIN_PGVECTOR", (0, 8))
    r = await search(client, key, query="bread baking tutorial", semantic=True)
    assert r.status_code == 200


async def test_without_pgvector_semantic_is_503_and_everything_else_works(settings, pg_url) -> None:
    """A server without the extension: the migration makes no embeddings table; searches by
    meaning answer 503 naming the extension, ingest and plain search work."""
    import os

    import psycopg

    from sors.app import create_app
    from sors.catalog.vectors import embeddings
    from sors.kit import migrate
    from sors.kit.db import Database, make_engine

    base, _, query = pg_url.partition("?")
    name = f"sors_novector_{os.getpid()}"
    tail = "?" + query if query else ""
    admin = base.rsplit("/", 1)[0].replace("+psycopg", "") + "/postgres" + tail
    url = base.rsplit("/", 1)[0] + "/" + name + tail
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        await migrate.upgrade_async(url)
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            # What a server without the extension has: none of its tables.
            conn.execute("DROP TABLE post_embeddings, post_embeddings_hot, "
                         "post_embeddings_recent, post_embeddings_pending, embedding_backfill")
            conn.execute("DROP EXTENSION vector")
        other = Database(make_engine(settings, url))
        app = create_app(settings.with_values(**{"database_url": url}), db=other)
        try:
            await world(other, settings)
            _, key = await create_account(other, credits=10)
            transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5556))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                r = await search(c, key, query="bread baking tutorial", semantic=True)
                assert r.status_code == 503 and r.json()["code"] == "semantic_unavailable"
                assert "pgvector" in r.json()["detail"]
                assert r.headers["x-credits-charged"] == "0"
                plain = await search(c, key, query="bread")
                assert plain.status_code == 200 and plain.json()["total"] >= 1
        finally:
            await other.dispose()
            embeddings.forget_availability()
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def test_a_transcript_moves_the_posts_vector_toward_what_it_says(db, settings) -> None:
    from sors.catalog.vectors import embeddings
    from sors.enrichment import repository as enrichment_repo

    ids = await world(db, settings)
    post = ids["good.pup"][0]

    async def vector() -> str:
        [r] = await rows(db, "SELECT embedding::text AS v FROM post_embeddings WHERE post_id = :p",
                         p=post)
        return r["v"]

    before = await vector()
    async with db.transaction() as s:
        await enrichment_repo.save_transcript(s, post, {
            "text": "today we bake sourdough bread and a rye loaf in a hot oven",
            "language": "en", "source": "speech", "segments": []}, engine="test", now=AT)
        await embeddings.refresh(s, [post])
    await publish(db, settings)
    assert await vector() != before


async def test_posts_stored_before_search_by_meaning_are_embedded_in_the_background(
    db, settings, monkeypatch
) -> None:
    from sors.catalog.vectors import embeddings

    ids = await world(db, settings)
    async with db.transaction() as s:
        await s.execute(embeddings.text("DELETE FROM post_embeddings"))
        await s.execute(embeddings.text("DELETE FROM embedding_backfill"))
    done = []
    for _ in range(4):  # 16 posts, 5 a tick: 5, 5, 5, 1, then one row read and nothing
        async with db.transaction() as s:
            done.append(await embeddings.backfill(s, settings, limit=5))
    async with db.transaction() as s:
        done.append(await embeddings.backfill(s, settings, limit=5))
    assert done == [5, 5, 5, 1, 0]
    [r] = await rows(db, "SELECT count(*) AS n FROM post_embeddings")
    assert r["n"] == 16 == sum(len(v) for v in ids.values())


async def test_a_model_change_re_embeds_without_mixing_spaces(db, client, settings,
                                                              monkeypatch) -> None:
    from sors.catalog.vectors import embeddings
    from sors.catalog.vectors import index as vector_index

    await world(db, settings)
    _, key = await create_account(db, credits=10)
    # The operator switches to another model (the static one; its vectors cut to 64).
    monkeypatch.setattr(settings.embeddings, "model", "wordllama:64")
    r = await search(client, key, query="bread baking tutorial", semantic=True)
    # Not one vector of the new model yet: nothing is near, and no vector of the old model
    # is compared with the query's.
    assert r.status_code == 200
    assert r.json()["results"] == [] and r.json()["match"] is None  # wordllama:64: uncalibrated
    async with db.transaction() as s:
        assert await embeddings.backfill(s, settings, limit=100) == 16
    [r2] = await rows(db, "SELECT count(*) FILTER (WHERE model = 'wordllama:64') AS new, "
                          "count(*) AS n FROM post_embeddings")
    assert r2 == {"new": 16, "n": 16}
    # The new model's vectors have indexes of their own: the subsets' at once, the one over
    # all of them when there are enough to train it (catalog.vector_index).
    [ix] = await rows(db, "SELECT count(*) AS n FROM pg_indexes WHERE tablename IN "
                          "('post_embeddings_hot', 'post_embeddings_recent') "
                          "AND indexname LIKE '%wordllama_64'")
    assert ix["n"] == 2
    built = await vector_index.train(db, "wordllama:64", 64, train_at=16)
    [ix] = await rows(db, "SELECT indexdef FROM pg_indexes WHERE indexname = :n", n=built["index"])
    assert "ivfflat" in ix["indexdef"] and "'wordllama:64'" in ix["indexdef"]
    top = (await search(client, key, query="bread baking tutorial", semantic=True,
                        pageSize=3)).json()["results"]
    assert top and top[0]["handle"] in {"crust.baker", "oven.only"}
    async with db.transaction() as s:
        await s.execute(text(f'DROP INDEX "{built["index"]}"'))


async def test_similar_creators_are_those_whose_posts_are_about_the_same_things(
        db, settings, client) -> None:
    await world(db, settings)
    _, key = await create_account(db, credits=10)
    [baker] = await rows(db, "SELECT id FROM profiles WHERE handle = 'crust.baker'")
    r = await client.post("/api/v1/search/profiles", headers=auth(key),
                          json={"similarTo": baker["id"], "pageSize": 3})
    assert r.status_code == 200, r.text
    found = r.json()["results"]
    assert found[0]["handle"] == "oven.only"  # the other baker
    assert baker["id"] not in [p["id"] for p in found]
    sims = [p["similarity"] for p in found]
    assert sims == sorted(sims, reverse=True)
    r = await client.post("/api/v1/search/profiles", headers=auth(key),
                          json={"similarTo": "prf_nobody"})
    assert r.status_code == 404 and r.json()["code"] == "profile_not_found"


async def test_niche_trends_by_meaning_group_the_outliers_into_named_themes(
        db, settings, client) -> None:
    from sors.catalog.trends import themes

    # Three creators about bread and three about coffee, their outliers worded differently.
    breads = ["Crusty sourdough loaf", "My sourdough bread rose overnight",
              "Sourdough starter feeding routine", "Sourdough crumb shot"]
    coffees = ["Espresso shot pulled slowly", "Milky espresso latte art",
               "Espresso grinder settings", "Espresso tamping mistakes"]
    for k, (handle, captions) in enumerate([("b.one", breads), ("b.two", breads[::-1]),
                                            ("c.one", coffees), ("c.two", coffees[::-1])]):
        posts = [replace(hand_post(handle, i, AT - timedelta(days=5 - i, hours=k),
                                   views=1000 if i else 30_000), caption=c)
                 for i, c in enumerate(captions)]
        await ingest(db, hand_crawl(handle, posts, AT))
    await publish(db, settings)
    _, key = await create_account(db, credits=10)
    r = await client.post("/api/v1/trends", headers=auth(key),
                          json={"semantic": True, "timeFrame": "all_time"})
    assert r.status_code == 200, r.text
    found = r.json()["themes"]
    assert found and all(t["postCount"] >= themes.MIN_THEME for t in found)
    named = {w for t in found for w in t["words"]}
    assert {"sourdough", "espresso"} <= named
    for t in found:  # a theme keeps to one subject
        subjects = {"bread" if p["handle"].startswith("b.") else "coffee" for p in t["posts"]}
        assert len(subjects) == 1, t
    plain = (await client.post("/api/v1/trends", headers=auth(key), json={})).json()
    assert "themes" not in plain


def test_grouping_is_greedy_by_nearness_and_deterministic() -> None:
    import numpy as np

    from sors.catalog.trends.themes import group

    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    near_a = np.array([0.9, 0.1]) / np.linalg.norm([0.9, 0.1])
    rows = np.stack([a, b, near_a, b])
    assert group(rows) == [[0, 2], [1, 3]]


async def test_posts_and_queries_of_no_known_word_get_no_vector_and_break_nothing(
    db, settings, client
) -> None:
    await world(db, settings)
    silent = replace(hand_post("quiet.one", 1, AT - timedelta(days=2)), caption="")
    emoji = replace(hand_post("quiet.one", 2, AT - timedelta(days=3)), caption="🔥🔥🔥")
    await ingest(db, hand_crawl("quiet.one", [silent, emoji], AT))
    await publish(db, settings)
    [r] = await rows(db, "SELECT count(*) FILTER (WHERE e.post_id IS NULL) AS missing "
                         "FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
                         "LEFT JOIN post_embeddings e ON e.post_id = p.id "
                         "WHERE pr.handle = 'quiet.one' AND coalesce(p.caption, '') = ''")
    assert r["missing"] == 1  # the post that says nothing has no vector
    _, key = await create_account(db, credits=10)
    for query in ("zxqv qwzx", "🔥🔥🔥"):
        r = await search(client, key, query=query, semantic=True)
        assert r.status_code == 200, r.text
        assert all(p["similarity"] is None or -1 <= p["similarity"] <= 1
                   for p in r.json()["results"])
    [post] = await rows(db, "SELECT p.id FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
                            "WHERE pr.handle = 'quiet.one' AND coalesce(p.caption, '') = ''")
    r = await search(client, key, similarTo=post["id"])
    assert r.status_code == 200 and r.json()["results"] == []


async def test_ingest_names_the_posts_and_the_scheduler_embeds_them(
    db, settings, runtime
) -> None:
    from sors.jobs.scheduler import Scheduler

    posts = [replace(hand_post("late.one", i, AT - timedelta(days=i + 1)), caption=c)
             for i, c in enumerate(["Bread at dawn", "Rye and spelt loaves"])]
    await ingest(db, hand_crawl("late.one", posts, AT))
    [before] = await rows(db, "SELECT (SELECT count(*) FROM post_embeddings) AS live, "
                              "(SELECT count(*) FROM post_embeddings_pending) AS pending")
    assert before == {"live": 0, "pending": 2}  # named in the crawl's transaction only
    await Scheduler(runtime).tick()
    [after] = await rows(db, "SELECT (SELECT count(*) FROM post_embeddings) AS live, "
                             "(SELECT count(*) FROM post_embeddings_pending) AS pending")
    assert after == {"live": 2, "pending": 0}


async def test_similar_to_in_similarity_order_reads_only_to_the_page_end(
        db, settings, client) -> None:
    ids = await world(db, settings)
    _, key = await create_account(db, credits=10)
    pup = ids["good.pup"][0]
    first = (await search(client, key, similarTo=pup, pageSize=2)).json()
    # 12 posts of other creators; the read stopped at the page's end plus one.
    assert (first["total"], first["totalCapped"], first["hasMore"]) == (3, True, True)
    whole = (await search(client, key, similarTo=pup, pageSize=20)).json()
    assert (whole["total"], whole["totalCapped"], whole["hasMore"]) == (12, False, False)
    assert [p["id"] for p in whole["results"][:2]] == [p["id"] for p in first["results"]]
    by_views = (await search(client, key, similarTo=pup, pageSize=2, sortBy="views")).json()
    assert (by_views["total"], by_views["totalCapped"]) == (12, False)  # sorted: all candidates
