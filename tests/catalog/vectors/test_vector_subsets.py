"""The subsets of the vectors with their own index. Hot: a search by meaning with a minimum
score of HOT_SCORE or more reads the index of the posts at or above it; a post's vector is
there once it is embedded at that score or its score reaches it, and leaves when its score
falls. Recent: a time frame of up to a month reads the index of the posts of the last
RECENT_DAYS days, swept as they age. Either way the search finds the same posts as one that
walks every vector."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from sors.catalog.search import semantic, service
from sors.catalog.search.schemas import SearchContentIn
from sors.catalog.vectors import embeddings
from sors.catalog.vectors.schema import HOT_SCORE, RECENT_DAYS
from tests.catalog.search.meaning.test_semantic import publish, search
from tests.factories import create_account
from tests.factories.world import (  # noqa: F401  (sim_time_restored: a fixture)
    hand_crawl,
    hand_post,
    ingest,
    rows,
    set_time,
    sim_time_restored,
)

pytestmark = pytest.mark.usefixtures("clean")

AT = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
CAPTIONS = ["How I bake crusty bread at home", "My sourdough loaf finally rose",
            "Kneading dough by hand for a soft loaf", "Croissants from scratch, layer by layer",
            "Rye loaf with a dark crust", "Focaccia dimples explained"]


def crawl(views: list[int], at: datetime):
    posts = [replace(hand_post("crust.baker", i, AT - timedelta(days=20 - i), views=v), caption=c)
             for i, (c, v) in enumerate(zip(CAPTIONS, views, strict=True))]
    return hand_crawl("crust.baker", posts, at)


async def hot_captions(db) -> set[str]:
    return await captions_in(db, "post_embeddings_hot")


async def scores(db) -> dict[str, float]:
    found = await rows(db, "SELECT caption, score_three_months AS s FROM posts")
    return {r["caption"]: r["s"] for r in found}


async def test_a_vector_is_hot_while_its_post_scores_at_least_the_threshold(db, settings) -> None:
    await ingest(db, crawl([1000, 1100, 900, 1000, 30_000, 1200], AT))
    await publish(db, settings)  # embedded after scoring: the write puts the outlier's vector
    # there
    assert (await scores(db))["Rye loaf with a dark crust"] >= HOT_SCORE
    assert await hot_captions(db) == {"Rye loaf with a dark crust"}
    # The next crawl: the first post takes off and lifts the creator's mean, the rye loaf
    # falls under the threshold. The crawl's scoring moves both, with no new vector made.
    await ingest(db, crawl([90_000, 1100, 900, 1000, 30_000, 1200], AT + timedelta(days=1)))
    now = await scores(db)
    assert now["How I bake crusty bread at home"] >= HOT_SCORE > now["Rye loaf with a dark crust"]
    assert await hot_captions(db) == {"How I bake crusty bread at home"}
    [vectors] = await rows(db, "SELECT count(*) AS n FROM post_embeddings_hot h JOIN "
                               "post_embeddings e USING (post_id) WHERE h.embedding = e.embedding")
    assert vectors["n"] == 1  # the very vector of the post


async def test_a_minimum_score_search_reads_the_hot_index_and_finds_what_the_full_one_finds(
        db, settings, client, monkeypatch) -> None:
    await ingest(db, crawl([1000, 25_000, 900, 30_000, 1000, 1200], AT))
    await publish(db, settings)
    _, key = await create_account(db, credits=10)
    for floor, hot in ((HOT_SCORE, True), (3, True), (1, False)):
        f = service.content_filter(SearchContentIn(minOutlierScore=floor), AT)
        assert (semantic._vectors(f)[0] is semantic.HOT) is hot
    body = {"query": "baking bread at home", "semantic": True, "minOutlierScore": 2}
    r = await search(client, key, **body)
    assert r.status_code == 200, r.text
    found = [p["caption"] for p in r.json()["results"]]
    assert sorted(found) == ["Croissants from scratch, layer by layer",
                             "My sourdough loaf finally rose"]
    monkeypatch.setattr(semantic, "_vectors", lambda f: (semantic.EMB, []))
    walked = await search(client, key, **body)
    assert [p["caption"] for p in walked.json()["results"]] == found
    similar = await search(client, key, similarTo=r.json()["results"][0]["id"],
                           includeSameCreator=True, minOutlierScore=2)
    assert [p["caption"] for p in similar.json()["results"]] == found[1:]


@pytest.mark.usefixtures("sim_time_restored")
async def test_a_recent_time_frame_reads_the_recent_vectors_which_are_swept_as_they_age(
        db, settings, app, client, monkeypatch) -> None:
    # Time frames count back from the simulated clock; the recent vectors from the
    # database's. Here both read now, as on a live server.
    now = datetime.now(UTC).replace(microsecond=0)
    await set_time(db, now)
    ages = [2, 9, 20, 33, 50, 80]  # days: the first four are recent
    posts = [replace(hand_post("crust.baker", i, now - timedelta(days=age), views=1000 + 37 * i),
                     caption=c) for i, (c, age) in enumerate(zip(CAPTIONS, ages, strict=True))]
    await ingest(db, hand_crawl("crust.baker", posts, now))
    await publish(db, settings)
    assert await captions_in(db, "post_embeddings_recent") == set(CAPTIONS[:4])
    for frame, recent in (("one_week", True), ("one_month", True), ("three_months", False),
                          ("all_time", False)):
        f = service.content_filter(SearchContentIn(timeFrame=frame), now)
        assert (semantic._vectors(f)[0] is semantic.RECENT) is recent, frame
    _, key = await create_account(db, credits=10)
    body = {"query": "baking bread at home", "semantic": True, "timeFrame": "one_month"}
    r = await search(client, key, **body)
    assert r.status_code == 200, r.text
    found = [p["caption"] for p in r.json()["results"]]
    assert set(found) == set(CAPTIONS[:3])  # the 33-day-old post is recent, not this month
    monkeypatch.setattr(semantic, "_vectors", lambda f: (semantic.EMB, []))
    walked = await search(client, key, **body)
    assert [p["caption"] for p in walked.json()["results"]] == found
    # Time passes for the oldest recent post: the sweep takes it out, and only it.
    async with db.transaction() as s:
        await s.execute(text("UPDATE post_embeddings_recent SET published_at = "
                             "now() - make_interval(days => :d) WHERE post_id = "
                             "(SELECT id FROM posts WHERE caption = :c)"),
                        {"d": RECENT_DAYS + 1, "c": CAPTIONS[3]})
        assert await embeddings.sweep_recent(s) == 1
    assert await captions_in(db, "post_embeddings_recent") == set(CAPTIONS[:3])


async def captions_in(db, table: str) -> set[str]:
    found = await rows(db, f"SELECT p.caption FROM {table} v JOIN posts p ON p.id = v.post_id")
    return {r["caption"] for r in found}
