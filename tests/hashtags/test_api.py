"""Hashtags over time through HTTP on a simulated catalog of four niches: counts match the
posts, boilerplate (tags every niche carries evenly) never shows, bad input costs nothing."""

from __future__ import annotations

from typing import Any

from tests.factories.world import rows
from tests.sounds.conftest import AT, NICHE, Niche


async def _trends(niche: Niche, **body: object) -> dict[str, Any]:
    r = await niche.client.post("/api/v1/trends/hashtags", json=body, headers=niche.headers)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "1"
    return r.json()


async def test_hashtags_count_their_posts_and_creators_and_leave_boilerplate_out(
    niche: Niche,
) -> None:
    boiler = {r["idea"] for r in await rows(
        niche.db, "SELECT idea FROM idea_boilerplate WHERE kind = 'hashtag'")}
    # The world's platform-wide tags are found from the data.
    assert {"fyp", "foryou"} <= boiler
    body = await _trends(niche, categoryId=NICHE, limit=50)
    assert (body["since"], body["until"]) == ("2026-06-05", AT.date().isoformat())
    found = body["hashtags"]
    assert found and not {h["tag"] for h in found} & boiler
    for h in found[:5]:
        [truth] = await rows(niche.db, """
            SELECT count(*) AS posts, count(DISTINCT p.profile_id) AS creators
              FROM posts p JOIN profile_niches n ON n.profile_id = p.profile_id
             WHERE :tag = ANY(p.hashtags) AND n.category_id = :niche
               AND p.published_at >= '2026-06-05' AND p.published_at < '2026-06-12'
            """, tag=h["tag"], niche=NICHE)
        assert (h["posts"], h["creators"]) == (truth["posts"], truth["creators"]), h
        assert h["creators"] >= 2 and h["posts"] >= 3
    ranks = [(h["posts"] + 1) / (h["previousPosts"] + 1) for h in found]
    assert ranks == sorted(ranks, reverse=True)
    # Without a niche: every niche's tags.
    everywhere = await _trends(niche, minPosts=1, limit=50)
    assert len(everywhere["hashtags"]) >= len(found)


async def test_a_bad_request_costs_nothing(niche: Niche) -> None:
    for body in ({"categoryId": "nope"}, {"minPosts": 0}, {"timeFrame": "forever"}):
        r = await niche.client.post("/api/v1/trends/hashtags", json=body,
                                    headers=niche.headers)
        assert r.status_code == 422, (body, r.text)
        assert r.headers["x-credits-charged"] == "0"
