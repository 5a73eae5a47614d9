"""A breakdown of a simulated video end to end: the platform renders it with synthesized
speech, the job transcribes and analyses it for real, and the hook is the script's first
sentence with its template's type."""

from __future__ import annotations

import httpx
import pytest

from sors.analyses.tasks import PEER_TARGET
from sors.platforms.sim import content
from tests.enrichment.api_support import video_post, word_error_rate, words
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle


def template_type(line: str, topic: str) -> str:
    for kind, templates in content.HOOK_TEMPLATES.items():
        if any(t.format(t=topic) == line for t in templates):
            return kind
    raise AssertionError(f"not a hook template: {line!r}")


async def test_a_simulated_videos_hook_is_its_first_spoken_sentence_and_its_type(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    post = await video_post(db)
    hook_line = post.script[0]
    expected = template_type(hook_line, post.snap.extra["topic"])
    _, key = await create_account(db, credits=50)
    r = await client.post("/api/v1/analyses", json={"postId": post.id}, headers=auth(key))
    assert r.status_code == 200, r.text
    assert await run_jobs_until_idle(runtime, timeout=300) == 1
    body = (await client.get(f"/api/v1/analyses/{r.json()['jobRef']}", headers=auth(key))).json()
    assert body["status"] == "completed", body
    a = body["analysis"]
    # The tiny speech model may mishear a word (the transcripts' tolerance) ...
    assert word_error_rate(hook_line, a["hook"]["spokenText"]) < 0.35, a["hook"]  # as transcripts
    assert words(a["hook"]["onScreenText"]) == words(hook_line)
    # ... the hook is the line the viewer met, as typed on screen, and says so.
    assert words(a["hook"]["text"]) == words(hook_line), a["hook"]
    assert a["hook"]["source"] == "on_screen_text" and "speech" in a["hook"]["supportedBy"]
    assert a["hook"]["type"] == expected
    values = {f["name"]: f["value"] for f in a["features"]}
    # Four rendered scenes: three cuts over the rendered length.
    assert values["cutsPerMinute"] > 0 and values["timeToFirstCut"] > 0
    # ... and the hook is the first scene's speech only: it ends before the first cut.
    assert a["hook"]["endSecond"] <= values["timeToFirstCut"] + 0.3
    assert values["cutsPerMinute"] * values["durationSeconds"] / 60 == pytest.approx(3, abs=0.25)
    # Enough of the creator's other videos were transcribed and analysed with it (their best
    # outliers and latest ordinary posts) for the media features to compare like with like
    # (at most PEER_TARGET, included in the price) ...
    assert 1 <= a["analysedPeerCount"] <= PEER_TARGET
    hook_row = next(f for f in a["features"] if f["name"] == "hookType")
    if hook_row["comparedWith"] == "creator":
        assert hook_row["baseline"]["postCount"] == a["analysedPeerCount"]
    speech = next(f for f in a["features"] if f["name"] == "speakingRate")
    assert speech["coverage"] is None or speech["coverage"]["method"] == "speech"
    # ... their hooks are in the library with what they came from; every other post of the
    # creator has its caption's opening line there.
    r = await client.post("/api/v1/hooks/search", json={"pageSize": 100}, headers=auth(key))
    hooks = r.json()["results"]
    assert all(h["creator"]["handle"] == "study.with.leo" for h in hooks)
    heard_or_shown = [h for h in hooks if h["source"] != "caption"]
    assert len(heard_or_shown) == 1 + a["analysedPeerCount"]
    assert {h["source"] for h in hooks} <= {"speech", "on_screen_text", "caption"}
