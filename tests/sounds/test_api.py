"""Sounds through HTTP on a simulated catalog: trends name the world's trending sounds (not
the creators' own audio), a sound's page adds up, and bad input costs nothing."""

from __future__ import annotations

from typing import Any

from sors.platforms.sim import sounds as sim_sounds
from sors.sounds.stages import STAGES
from tests.factories.world import rows
from tests.sounds.conftest import AT, NICHE, WORLD, Niche


async def _trends(niche: Niche, **body: object) -> dict[str, Any]:
    r = await niche.client.post("/api/v1/trends/sounds", json=body, headers=niche.headers)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "1"
    return r.json()


async def _keys(niche: Niche, ids: list[str]) -> dict[str, str]:
    found = await rows(niche.db, "SELECT id, sound_key FROM sounds WHERE id = ANY(:ids)",
                       ids=ids)
    return {r["id"]: r["sound_key"] for r in found}


async def test_trending_sounds_are_the_worlds_shared_tracks_of_the_niche(niche: Niche) -> None:
    body = await _trends(niche, categoryId=NICHE, timeFrame="two_weeks")
    assert body["categoryId"] == NICHE and body["until"] == AT.date().isoformat()
    assert body["since"] == "2026-05-29"
    found = body["sounds"]
    assert found, body
    keys = await _keys(niche, [s["soundId"] for s in found])
    for s in found:
        # Never a creator's own audio: each is one of the world's trending tracks, adopted
        # by this niche.
        truth = sim_sounds.by_id(WORLD.seed, "tiktok", keys[s["soundId"]], AT.timestamp())
        assert truth is not None and NICHE in truth.niches, s
        assert (s["title"], s["author"], s["original"]) == (truth.title, truth.author, False)
        assert s["stage"] in STAGES
        assert 1 <= s["creators"] <= s["uses"]
        assert 1 <= len(s["examplePosts"]) <= min(3, s["creators"])
        assert {p["platform"] for p in s["examplePosts"]} == {"tiktok"}
    assert "Hour Bloom" in {s["title"] for s in found}
    # Growth orders them; a stage filter keeps only its stage.
    only = (await _trends(niche, categoryId=NICHE, timeFrame="two_weeks",
                          stages=["fading"]))["sounds"]
    assert {s["stage"] for s in only} <= {"fading"}
    assert {s["soundId"] for s in only} == {s["soundId"] for s in found
                                            if s["stage"] == "fading"}


async def test_a_sounds_page_adds_up_over_its_posts(niche: Niche) -> None:
    [top, *_] = (await _trends(niche, categoryId=NICHE, timeFrame="two_weeks"))["sounds"]
    r = await niche.client.get(f"/api/v1/sounds/{top['soundId']}", headers=niche.headers)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "1"
    d = r.json()
    [truth] = await rows(niche.db, """
        SELECT count(*) AS posts, count(DISTINCT profile_id) AS creators,
               sum(views) AS views, min(published_at) AS first
          FROM posts WHERE sound_id = :id""", id=top["soundId"])
    assert (d["posts"], d["creators"], d["views"]) == (
        truth["posts"], truth["creators"], truth["views"])
    assert sum(u["posts"] for u in d["usage"]) == d["posts"]
    assert sum(u["newCreators"] for u in d["usage"]) == d["creators"]
    assert [u["day"] for u in d["usage"]] == sorted(u["day"] for u in d["usage"])
    assert d["firstUsedAt"] == truth["first"].strftime("%Y-%m-%dT%H:%M:%SZ")
    firsts = [a["firstUsedAt"] for a in d["earlyAdopters"]]
    assert firsts == sorted(firsts) and firsts[0] == d["firstUsedAt"]
    assert {a["handle"] for a in d["earlyAdopters"]} <= set(niche.handles)
    assert sum(n["posts"] for n in d["niches"]) == d["posts"]
    assert len(d["examplePosts"]) == min(5, d["creators"])


async def test_unknown_sounds_and_bad_niches_cost_nothing(niche: Niche) -> None:
    r = await niche.client.get("/api/v1/sounds/snd_nope", headers=niche.headers)
    assert r.status_code == 404 and r.json()["code"] == "sound_not_found"
    assert r.headers["x-credits-charged"] == "0"
    for body in ({"categoryId": "education.languages"}, {"timeFrame": "forever"},
                 {"stages": ["viral"]}):
        bad = await niche.client.post("/api/v1/trends/sounds", json=body,
                                      headers=niche.headers)
        assert bad.status_code == 422, (body, bad.text)
        assert bad.headers["x-credits-charged"] == "0"


async def test_search_takes_a_sound(niche: Niche) -> None:
    [top, *_] = (await _trends(niche, categoryId=NICHE, timeFrame="two_weeks"))["sounds"]
    r = await niche.client.post("/api/v1/search/content", headers=niche.headers, json={
        "soundId": top["soundId"], "pageSize": 100, "sortBy": "recent"})
    assert r.status_code == 200, r.text
    found = r.json()["results"]
    truth = await rows(niche.db, "SELECT id FROM posts WHERE sound_id = :s "
                                 "ORDER BY published_at DESC, id", s=top["soundId"])
    assert [p["id"] for p in found] == [t["id"] for t in truth]
    assert {p["sound_id"] for p in found} == {top["soundId"]}
    none = await niche.client.post("/api/v1/search/content", headers=niche.headers,
                                   json={"soundId": "snd_nope"})
    assert none.status_code == 200 and none.json()["results"] == []
