"""Breakouts over ideas stored when posts are written (hashtags on the post's row, migration
0018; phrases in post_ideas, 0014): the same answers as extracting them from the captions at
request time, kept current when a caption is edited, untouched when it is not, and blind to
deleted posts."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

from sqlalchemy import text

from sors.breakouts import repository as repo
from sors.demo.seed import seed_world
from sors.platforms import taxonomy
from sors.platforms.base import CrawlSnapshot
from tests.breakouts.breakouts_reference import reference_breakouts
from tests.breakouts.test_breakouts import _baker
from tests.catalog.ingest.test_baselines import T, ingest

KINDS = ("hashtag", "phrase", "format", "sound")
# Captions that exercise every rule: repeated and mixed-case tags, one-letter tags, accents,
# mentions, links, numbers, stop words, punctuation; and sounds, which the simulated world
# does not name.
TRICKY = [
    "Café crème brûlée night #Dessert #dessert #a #crème_brûlée @chef.x https://x.io/a?b=1",
    "Crème brûlée night: 100 layers!! #DESSERT #late_night",
    "the best crème brûlée night ever #dessert http://t.co/z crème brûlée",
]


def _tricky(n: int, caption: str) -> CrawlSnapshot:
    snap = _baker(f"dessert.{n}", 40 + n, caption, 20_000)
    posts = [dataclasses.replace(p, extra={"track": f"Original Sound {n % 2}"}) for p in snap.posts]
    return dataclasses.replace(snap, posts=posts)


def _query(**kw: Any) -> repo.BreakoutQuery:
    base: dict[str, Any] = dict(
        since=None, min_score=1.5, min_creators=2, kinds=KINDS, score_window="three_months",
        score_method="mean", limit=50, evidence_limit=1000,
    )
    return repo.BreakoutQuery(**{**base, **kw})


async def test_stored_ideas_give_the_request_time_answers(db, settings, clean) -> None:
    await seed_world(db, settings=settings, profiles=24, seed=11, now=T)
    await ingest(db, *(_tricky(n, c) for n, c in enumerate(TRICKY)))
    queries = [
        _query(),
        _query(min_score=3, min_creators=3),
        _query(since=T - timedelta(days=30), kinds=("hashtag", "sound")),
        _query(score_method="median", score_window="one_month", kinds=("phrase", "format")),
        _query(platforms=("tiktok",), min_score=1.0),
        _query(kinds=("phrase",)),  # one kind: repeated phrases still count a post once
        _query(kinds=("hashtag",), min_score=0),
        _query(limit=3),
        _query(kinds=("format", "sound"), limit=2, min_score=0.5),
        _query(category_ids=taxonomy.descendants("food"), category_label="food", min_score=1.0),
    ]
    found: set[str] = set()
    async with db.transaction() as s:
        for q in queries:
            new = await repo.breakouts(s, q)
            # The order is by lift (tests/breakouts/test_breakouts.py); each group's own
            # numbers are the request-time extraction's, whatever made the cut.
            old = {(r["kind"], r["idea"], r["category_id"]): r for r in await reference_breakouts(
                s, dataclasses.replace(q, limit=100_000))}
            assert new and len(new) <= q.limit, q
            assert [r["lift"] for r in new] == sorted((r["lift"] for r in new), reverse=True)
            for r in new:
                ref = old[(r["kind"], r["idea"], r["category_id"])]
                assert {k: r[k] for k in ref} == ref, (q, r)
            found |= {r["kind"] for r in new}
        # The answer shows the best posts of the first few creators only, in the same order.
        capped = await repo.breakouts(s, dataclasses.replace(queries[0], evidence_limit=2))
        full = await repo.breakouts(s, queries[0])
        assert [r["evidence"] for r in capped] == [r["evidence"][:2] for r in full]
        assert any(r["creators"] > 2 for r in capped)
        # Every post got its ideas at ingest: its hashtags are the caption's (as a set), its
        # phrases the caption's.
        stale = await s.scalar(text("""
            SELECT count(*) FROM posts p LEFT JOIN post_ideas i ON i.post_id = p.id
            WHERE i.post_id IS NULL OR i.phrases <> sors_caption_phrases(p.caption)
               OR NOT (p.hashtags @> sors_caption_hashtags(p.caption)
                       AND p.hashtags <@ sors_caption_hashtags(p.caption))"""))
        assert stale == 0
        tags = await s.scalar(
            text("SELECT p.hashtags FROM posts p WHERE p.caption = :c"), {"c": TRICKY[0]})
    assert found == set(KINDS)  # the comparison saw every kind of idea
    # In caption order, a repeated tag repeated (a breakout counts creators and posts).
    assert tags == ["dessert", "dessert", "crème_brûlée"]


async def _ideas(db, platform_post_id: str) -> tuple[list[str], int]:
    """The post's hashtags, and which transaction last wrote its phrases."""
    async with db.transaction() as s:
        row = (await s.execute(text(
            "SELECT p.hashtags, CAST(CAST(i.xmin AS text) AS bigint) FROM post_ideas i "
            "JOIN posts p ON p.id = i.post_id WHERE p.platform_post_id = :p"),
            {"p": platform_post_id})).one()
    return row[0], row[1]


async def _hashtags(db, **kw: Any) -> dict[str, int]:
    kw = {"since": T - timedelta(days=7), "min_score": 3, "min_creators": 3, **kw}
    q = _query(kinds=("hashtag",), **kw)
    async with db.transaction() as s:
        return {r["idea"]: r["creators"] for r in await repo.breakouts(s, q)}


async def _three_bakers(db) -> list[CrawlSnapshot]:
    snaps = [
        _baker("baker.one", 1, "Open crumb #crumbshot", 9_000),
        _baker("baker.two", 2, "My best loaf #crumbshot", 6_000),
        _baker("baker.three", 3, "Tried the trick #crumbshot", 12_000),
    ]
    await ingest(db, *snaps)
    assert await _hashtags(db) == {"crumbshot": 3}
    return snaps


async def test_an_edited_caption_moves_the_ideas_and_an_unchanged_one_writes_nothing(
    db, clean
) -> None:
    snaps = await _three_bakers(db)
    hit = "750300000000000999"
    tags, written = await _ideas(db, hit)
    assert tags == ["crumbshot"]
    # The same captions a day later: the stored ideas are not rewritten.
    later = [dataclasses.replace(s, fetched_at=T + timedelta(days=1)) for s in snaps]
    await ingest(db, *later)
    assert await _ideas(db, hit) == (tags, written)
    # baker.three edits the caption: its post now carries the new tag, and the old one
    # is down to two creators.
    edited = [
        dataclasses.replace(p, caption="Tried the trick #crumbcheck")
        if p.platform_post_id == hit else p
        for p in later[2].posts
    ]
    await ingest(db, dataclasses.replace(later[2], posts=edited, fetched_at=T + timedelta(days=2)))
    assert (await _ideas(db, hit))[0] == ["crumbcheck"]
    # The edit reached the post itself too (a re-crawl writes captions by a statement of
    # its own, catalog.ingest), and so its search vector.
    async with db.transaction() as s:
        caption, found = (await s.execute(text(
            "SELECT caption, search_vector @@ plainto_tsquery('simple', 'crumbcheck') "
            "FROM posts WHERE platform_post_id = :p"), {"p": hit})).one()
    assert (caption, found) == ("Tried the trick #crumbcheck", True)
    assert await _hashtags(db) == {}
    assert await _hashtags(db, min_creators=2) == {"crumbshot": 2}


async def test_a_deleted_post_no_longer_counts(db, clean) -> None:
    snaps = await _three_bakers(db)
    # baker.three's complete listing no longer holds the hit: the post is deleted.
    gone = [p for p in snaps[2].posts if p.platform_post_id != "750300000000000999"]
    await ingest(db, dataclasses.replace(snaps[2], posts=gone, fetched_at=T + timedelta(hours=1)))
    async with db.transaction() as s:
        deleted = await s.scalar(text(
            "SELECT deleted_at IS NOT NULL FROM posts WHERE platform_post_id = :p"),
            {"p": "750300000000000999"})
    assert deleted
    assert await _hashtags(db) == {}
    assert await _hashtags(db, min_creators=2) == {"crumbshot": 2}



async def test_ideas_for_a_whole_statement_follow_the_per_caption_rules(
    db, settings, clean
) -> None:
    """Migration 0017 extracts a statement's ideas in one set-based function; its results
    are 0014's per-caption definitions', caption by caption (edge cases, the tricky
    captions, and the simulated world's captions)."""
    import importlib

    old = importlib.import_module("sors.migrations.versions.0014_post_ideas")
    await seed_world(db, settings=settings, profiles=30, seed=5, now=T)
    edge = ["", " ", "a b", "#x #yy ##zz", "Ünïcödé wörds here and there 2024 2025",
            "@only @mentions https://links.only/x", "the and for with this that", "one two",
            "##ab #a#bb# no#tag #x_y1! #_ #__", "#ÉTÉ #été2024 #日本 #a-b"]
    async with db.transaction() as s:
        for name in ("hashtags", "phrases"):
            body = getattr(old, name.upper()).replace(
                f"FUNCTION sors_caption_{name}(", f"FUNCTION pg_temp.old_{name}(")
            await s.execute(text(body))
        captions = [c for (c,) in (await s.execute(text("SELECT caption FROM posts"))).all()]
        captions += TRICKY + edge + [None]  # type: ignore[list-item]
        differ = (await s.execute(text("""
            SELECT f.post_id, f.hashtags, f.phrases
              FROM sors_posts_ideas(
                     CAST(:ids AS text[]), CAST(:captions AS text[])) AS f
             WHERE f.hashtags IS DISTINCT FROM pg_temp.old_hashtags(
                       (CAST(:captions AS text[]))[CAST(f.post_id AS int)])
                OR f.phrases IS DISTINCT FROM pg_temp.old_phrases(
                       (CAST(:captions AS text[]))[CAST(f.post_id AS int)])"""),
            {"ids": [str(i + 1) for i in range(len(captions))], "captions": captions})).all()
        assert differ == []
        rows = (await s.execute(text(
            "SELECT count(*), sum(cardinality(hashtags)), sum(cardinality(phrases)) "
            "FROM sors_posts_ideas(CAST(:ids AS text[]), CAST(:captions AS text[]))"),
            {"ids": [str(i + 1) for i in range(len(captions))], "captions": captions})).one()
    assert rows[0] == len(captions) and rows[1] > 50 and rows[2] > 50  # one row per caption
