"""The rule of `semantic: true` (docs/API.md, "Search by meaning"): meaning finds the candidates,
the query's words (weighed by their rarity in this catalog) only reorder them, a quoted phrase
keeps only the posts that hold it, and the answer says how close the best one is (`match`),
billed as any search."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.catalog.search import semantic, words
from tests.catalog.search.meaning.test_semantic import AT, publish, search
from tests.factories import create_account
from tests.factories.world import hand_crawl, hand_post, ingest, rows, scalar

pytestmark = pytest.mark.usefixtures("clean")

STUDENTS = {
    "dorm.cook": ["Budget dinner ideas for college: rice, beans and eggs",
                  "Five meals under two dollars a portion for my dorm week"],
    "tech.deals": ["Best laptop for students in 2026", "Student discount on headphones, worth it?"],
    "crust.baker": ["How I bake crusty bread at home", "My sourdough loaf finally rose"],
    "good.pup": ["My puppy learned to sit in one day", "Walking a reactive dog calmly"],
    "daily.grind": ["Pulling the perfect espresso shot", "Latte art for beginners"],
    "pan.nights": ["Sheet pan chicken with lemon and potatoes", "Sheet pan dinner in 20 minutes",
                   "One pan pasta for busy nights", "Crème brûlée for two"],
    "zuurdesem.nl": ["Zelfgemaakt zuurdesembrood met een krokante korst, mijn starter is "
                     "eindelijk actief geworden 🍞 #zuurdesem #bakken",
                     "Onze kat negeert haar nieuwe krabpaal en kiest toch liever de bank 🐈 "
                     "#katten"],
}


async def catalog(db, settings, captions: dict[str, list[str]]) -> None:
    for k, (handle, texts) in enumerate(captions.items()):
        posts = [replace(hand_post(handle, i, AT - timedelta(days=30 - i, hours=k)), caption=c)
                 for i, c in enumerate(texts)]
        await ingest(db, hand_crawl(handle, posts, AT))
    await publish(db, settings)


async def meaning(client: httpx.AsyncClient, key: str, query: str, **body: Any) -> dict[str, Any]:
    r = await search(client, key, query=query, semantic=True, **body)
    assert r.status_code == 200, r.text
    return r.json()


async def test_a_paraphrase_ranks_the_posts_about_it_above_one_sharing_its_words(
        db, settings, client) -> None:
    await catalog(db, settings, STUDENTS)
    _, key = await create_account(db, credits=10)
    found = (await meaning(client, key, "cheap meals for students", pageSize=5))["results"]
    assert [p["handle"] for p in found[:2]] == ["dorm.cook", "dorm.cook"]
    laptop = next(p for p in found if p["caption"].startswith("Best laptop"))
    # It holds "for" and "students", two of the query's four words: they lift it a little,
    # not past the meals that share almost none.
    assert laptop["relevance"] > laptop["similarity"]
    assert laptop["relevance"] < min(p["relevance"] for p in found[:2])


async def test_results_come_in_relevance_order_with_both_scores(db, settings, client) -> None:
    await catalog(db, settings, STUDENTS)
    _, key = await create_account(db, credits=10)
    page = await meaning(client, key, "baking bread at home", pageSize=20)
    found = page["results"]
    assert page["total"] == len(found) == sum(map(len, STUDENTS.values()))  # all are near
    relevance = [p["relevance"] for p in found]
    assert relevance == sorted(relevance, reverse=True)
    for p in found:
        assert p["similarity"] == round(p["similarity"], 4)
        assert p["relevance"] == round(p["relevance"], 4)
        # The words add at most WORD_WEIGHT (a post holding every word of the query).
        assert 0 <= p["relevance"] - p["similarity"] <= semantic.WORD_WEIGHT + 1e-4
    assert found[0]["caption"] == "How I bake crusty bread at home"
    assert page["match"] == "good"
    # Another order sorts the same candidates; each still carries both scores.
    by_views = (await meaning(client, key, "baking bread at home", sortBy="views"))["results"]
    assert {p["id"] for p in by_views} == {p["id"] for p in found}
    assert all(p["relevance"] is not None for p in by_views)


async def test_a_query_about_nothing_in_the_catalog_says_none_and_is_charged(
        db, settings, client) -> None:
    await catalog(db, settings, STUDENTS)
    account, key = await create_account(db, credits=10)
    r = await search(client, key, query="tax deductions for a home office", semantic=True)
    assert r.status_code == 200, r.text
    assert r.json()["match"] == "none"
    assert r.json()["results"]  # the closest come back all the same, said to be far
    assert r.headers["x-credits-charged"] == "1"
    assert await scalar(db, "SELECT balance FROM accounts WHERE id = :a", a=account) == 9


async def test_an_english_query_finds_a_dutch_caption_about_the_same_thing(
        db, settings, client) -> None:
    await catalog(db, settings, STUDENTS)
    _, key = await create_account(db, credits=10)
    found = (await meaning(client, key, "baking sourdough bread at home",
                           pageSize=20))["results"]
    captions = [p["caption"] for p in found]
    dutch = next(i for i, c in enumerate(captions) if "zuurdesembrood" in c)
    # Among the first posts, about food like the English ones about bread; above every post
    # about dogs, coffee, gadgets or (in Dutch too) cats, though it shares no word with the
    # query.
    assert dutch < 4
    assert all(p["handle"] not in {"good.pup", "daily.grind", "tech.deals"}
               and "katten" not in p["caption"] for p in found[:dutch])


async def test_a_quoted_phrase_keeps_only_the_posts_that_hold_it(db, settings, client) -> None:
    await catalog(db, settings, {**STUDENTS, "flip.side": ["A pan sheet of cookies"]})
    _, key = await create_account(db, credits=10)
    found = (await meaning(client, key, '"sheet pan" dinner ideas'))["results"]
    assert sorted(p["caption"] for p in found) == [
        "Sheet pan chicken with lemon and potatoes", "Sheet pan dinner in 20 minutes"]
    # Accents fold as in every word search.
    found = (await meaning(client, key, 'dessert "creme brulee"'))["results"]
    assert [p["caption"] for p in found] == ["Crème brûlée for two"]
    assert (await meaning(client, key, '"pan pasta sheet"'))["results"] == []


async def test_a_word_on_most_posts_of_a_small_catalog_weighs_little(db, settings) -> None:
    """A few hundred posts: "easy" is on most of them, "sourdough" on four. The weights are
    relative to the catalog's size, so the common word weighs little however small the
    catalog is; and counted exactly (a small catalog) or read from the statistics (how a
    large one is weighed) they agree."""
    easy = {f"easy.{n}": [f"Easy {thing} number {n}" for thing in ("stretch", "outfit", "trick")]
            for n in range(90)}
    easy["sour.dough"] = ["Sourdough starter day one", "Easy sourdough loaf",
                          "Sourdough discard crackers", "Sourdough or yeast?"]
    await catalog(db, settings, easy)
    async with db.session() as s:
        counted = await words.weights(s, "easy sourdough")
    assert not counted.estimated
    weight = dict(zip(counted.words, counted.idfs, strict=True))
    posts = 3 * 90 + 4
    assert weight["easy"] == pytest.approx(words.idf(271, posts))  # 0.01
    assert weight["sourdough"] == pytest.approx(words.idf(4, posts))  # 4.0
    async with db.transaction() as s:
        await s.execute(text("ANALYZE posts"))
    words_exact_below = words.EXACT_BELOW
    words.EXACT_BELOW = 0  # as a catalog past it: from the statistics
    try:
        async with db.session() as s:
            estimated = await words.weights(s, "easy sourdough")
    finally:
        words.EXACT_BELOW = words_exact_below
    assert estimated.estimated and estimated.words == counted.words
    for a, b in zip(estimated.idfs, counted.idfs, strict=True):
        assert a == pytest.approx(b, abs=0.35)


async def test_the_candidates_are_only_the_nearest_posts(db, settings, client,
                                                         monkeypatch) -> None:
    """A word never brings in a post that meaning did not find: with room for three
    candidates, the posts holding the query's rarest word but about something else stay out."""
    await catalog(db, settings, STUDENTS)
    _, key = await create_account(db, credits=10)
    monkeypatch.setattr(semantic, "MEANING_DEPTH", 3)
    page = await meaning(client, key, "espresso laptop for my puppy", pageSize=20)
    assert page["total"] == 3 == len(page["results"])
    nearest = await rows(db, "SELECT count(*) AS n FROM post_embeddings")
    assert nearest[0]["n"] > 3
