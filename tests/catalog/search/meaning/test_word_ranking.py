"""The word half of search by meaning: a common word reorders the meaning's candidates but
does not pull in every post that holds it; a rare word finds its posts wherever they are."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select, text

from sors.catalog.search import semantic, service
from sors.catalog.search.schemas import SearchContentIn
from sors.catalog.vectors import embeddings
from tests.catalog.search.meaning.test_semantic import AT, world
from tests.factories.world import rows

pytestmark = pytest.mark.usefixtures("clean")

QUERY = "a loaf for my puppy"


async def test_common_words_rank_only_among_the_meaning_candidates(
        db, settings, monkeypatch) -> None:
    await world(db, settings)
    async with db.transaction() as s:
        await s.execute(text("ANALYZE posts"))  # the statistics that tell common from rare
    # At this scale "loaf" (3 of 16 posts) counts as common and "puppy" (1 post) as rare.
    monkeypatch.setattr(semantic, "RARE_POSTS", 2)
    monkeypatch.setattr(semantic, "CANDIDATES", 3)
    model = embeddings.embedder_or_none(settings)
    assert model is not None
    f = replace(service.content_filter(SearchContentIn(timeFrame="all_time"), AT), query=None)
    params = {**semantic.post_params(f), "qvec": embeddings.query_vector(model, QUERY),
              "model": model.key, "query": QUERY, "rare_posts": semantic.RARE_POSTS}
    near = semantic._nearest(f, model.dims, words=True)
    words = semantic._worded(f, near).subquery()
    async with db.session() as s:
        candidates = {r[0] for r in await s.execute(select(near.c.id), params)}
        ranked = {r[0] for r in await s.execute(select(words.c.id), params)}
    loaf = {r["id"] for r in await rows(db, "SELECT id FROM posts WHERE caption ILIKE '%loaf%'")}
    puppy = {r["id"] for r in await rows(db, "SELECT id FROM posts WHERE caption ILIKE '%puppy%'")}
    worded = {r["id"] for r in await rows(
        db, "SELECT id FROM posts WHERE search_vector @@ 'a | loaf | for | my | puppy'::tsquery")}
    assert len(candidates) == 3 and len(loaf) == 3 and len(puppy) == 1
    assert ranked == puppy | (worded & candidates)
    assert loaf - candidates, "the check needs a loaf post outside the meaning's candidates"
