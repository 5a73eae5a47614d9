"""The hook as the viewer met it: speech, on-screen text and caption reconciled (garbled speech
loses to the screen text the caption agrees with), and the hook library built from every
outlier of the catalog by the scheduler's budgeted pass, not only from paid analyses."""

from __future__ import annotations

import httpx
import pytest

from sors.analyses.reconcile import Witness, reconcile
from tests.enrichment.api_support import charged
from tests.factories import auth, create_account
from tests.factories.world import ingest, run_once, set_time, sim_time_restored

from .niche import AT, crawl, give_media, ids_of, post, speech
from .test_api import analyse

pytestmark = pytest.mark.usefixtures("sim_time_restored")
__all__ = ["sim_time_restored"]

HEARD = "I tried as I breakfast bowl for a week"  # what the speech model made of it
SHOWN = "I tried acai breakfast bowl for a week"
CAPTION = "Acai breakfast bowls, every morning for a week #vegan #breakfast"


def test_the_screen_text_the_caption_agrees_with_wins_over_garbled_speech() -> None:
    found = reconcile(Witness("speech", HEARD, 0.2, 2.6, 0.61),
                      Witness("on_screen_text", SHOWN, 0.0, 3.0), CAPTION)
    assert found is not None and found.chosen.text == SHOWN
    assert found.supported_by == ("speech", "caption")
    # Heard apart ("cold while it's set up"), shown right: still the same line.
    found = reconcile(Witness("speech", "cold while it's set up", 0.2, 2.0, 0.8),
                      Witness("on_screen_text", "Cold wallet setup", 0.0, 3.0),
                      "Three steps for beginners")
    assert found is not None and found.chosen.source == "on_screen_text"
    # The caption can side with the speech when the screen misread a word.
    found = reconcile(Witness("speech", "Five cheap vegan lunches", 0.2, 2.0, 0.9),
                      Witness("on_screen_text", "Five cheap vegam lunches", 0.0, 3.0),
                      "Five vegan lunches under $3")
    assert found is not None and found.chosen.source == "speech"
    # Different lines and nothing to choose by: what the viewer hears, unless the speech
    # model was unsure of it.
    said = Witness("speech", "Hey friends, welcome back", 0.2, 2.0, 0.9)
    shown = Witness("on_screen_text", "Three tofu mistakes", 0.0, 3.0)
    heard = reconcile(said, shown, "")
    assert heard is not None and heard.chosen.source == "speech"
    unsure = reconcile(Witness("speech", "Hey friends, welcome back", 0.2, 2.0, 0.3), shown, "")
    assert unsure is not None and unsure.chosen.source == "on_screen_text"
    # Nothing said or shown: the caption's opening sentence, without its tags.
    only = reconcile(None, None, "Breakfast in 5 minutes. Recipe below #vegan")
    assert only is not None and only.chosen.text == "Breakfast in 5 minutes."
    assert only.chosen.source == "caption"


async def test_garbled_speech_loses_to_the_screen_text_in_the_analysis_and_the_library(
    runtime, client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, AT)
    handle = "acai.mornings"
    snaps = [post(handle, i, 2 + i / 2, hit=False) for i in range(12)]
    snaps += [post(handle, 60 + i, 1.25 + 3 * i, hit=True, caption=CAPTION) for i in range(3)]
    await ingest(db, crawl(handle, snaps))
    posts = await ids_of(db, handle)
    for pid, views in posts:
        if views > 50_000:
            await give_media(db, pid, speech(HEARD, confidence=0.61), shown=SHOWN)
        else:
            await give_media(db, pid, speech("Good morning, here is breakfast.",
                                             confidence=0.95))
    target = next(pid for pid, views in reversed(posts) if views > 50_000)
    _, key = await create_account(db, credits=100)
    a = (await analyse(client, runtime, key, target, app))["analysis"]
    hook = a["hook"]
    assert hook["text"] == SHOWN and hook["source"] == "on_screen_text"
    assert hook["spokenText"] == HEARD and hook["onScreenText"] == SHOWN
    assert hook["supportedBy"] == ["speech", "caption"] and hook["speechConfidence"] == 0.61
    assert hook["type"] == "challenge"  # "I tried …", as shown
    assert f"\u201c{SHOWN}\u201d (on screen and heard" in a["summary"]

    r = await client.post("/api/v1/hooks/search", json={"query": "acai"}, headers=auth(key))
    assert r.status_code == 200 and charged(r) == 1
    found = r.json()["results"]
    assert found and all(h["text"] == SHOWN and h["source"] == "on_screen_text"
                         for h in found)


async def test_the_library_holds_every_outlier_after_a_scheduler_pass(
    runtime, client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, AT)
    snaps = [post("never.analysed", i, 2 + i / 2, hit=False) for i in range(12)]
    snaps += [post("never.analysed", 70 + i, 1.25 + 3 * i, hit=True,
                   caption="3 tofu mistakes everyone makes. Save this #vegan")
              for i in range(3)]
    await ingest(db, crawl("never.analysed", snaps))
    posts = await ids_of(db, "never.analysed")
    outliers = [pid for pid, views in posts if views > 50_000]
    await give_media(db, outliers[0], speech("Three tofu mistakes everyone makes."),
                     shown="3 tofu mistakes everyone makes")
    _, key = await create_account(db, credits=10)
    r = await client.post("/api/v1/hooks/search", json={}, headers=auth(key))
    assert r.json()["total"] == 0  # nobody paid for an analysis

    first, _, _ = await run_once(runtime)
    assert first["analyses.hook_library"] == 3
    r = await client.post("/api/v1/hooks/search", json={"pageSize": 50}, headers=auth(key))
    hooks = {h["postId"]: h for h in r.json()["results"]}
    assert set(hooks) == set(outliers)  # the outliers, not the ordinary posts
    assert hooks[outliers[0]]["source"] == "on_screen_text"
    assert hooks[outliers[0]]["text"] == "3 tofu mistakes everyone makes"
    for pid in outliers[1:]:
        assert hooks[pid]["source"] == "caption"
        assert hooks[pid]["text"] == "3 tofu mistakes everyone makes."
        assert hooks[pid]["hookType"] == "number_list"
    # A pass finds nothing more to do until an outlier changes.
    again, _, _ = await run_once(runtime)
    assert again["analyses.hook_library"] == 0
