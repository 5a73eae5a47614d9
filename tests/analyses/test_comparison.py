"""Something true to say about every outlier, through HTTP against real PostgreSQL: a creator
with no other outlier is compared with its niche (named in the text), and a feature is
compared only among posts where it was measured the same way."""

from __future__ import annotations

import re

import httpx
import pytest

from sors.analyses.findings import MIN_MEASURED
from tests.factories import create_account
from tests.factories.world import ingest, set_time, sim_time_restored

from .niche import AT, CAPTION, LONG, SHORT, crawl, give_media, ids_of, niche, post, speech
from .test_api import analyse

pytestmark = pytest.mark.usefixtures("sim_time_restored")
__all__ = ["sim_time_restored"]

# Words a reader should never meet: a programming literal where a value belongs.
LITERALS = re.compile(r"\b(True|False|None|nan)\b")


def texts(a: dict) -> list[str]:
    """Every sentence of a breakdown a person reads."""
    found = [a["summary"], a["comparison"]["text"], a["comparison"]["reason"] or ""]
    found += [f["text"] for f in a["findings"]] + [f["display"] or "" for f in a["features"]]
    return found


async def test_a_creator_with_no_other_outlier_is_compared_with_similar_creators(
    runtime, client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, AT)
    await niche(db)
    mine = [post("lone.vegan", i, 2 + i, hit=False) for i in range(14)]
    mine.append(post("lone.vegan", 99, 5.5, hit=True))
    await ingest(db, crawl("lone.vegan", mine))
    posts = await ids_of(db, "lone.vegan")
    for post_id, _ in posts:  # the creator's videos are transcribed: no media to fetch
        await give_media(db, post_id, speech("Here is my crispy tofu dinner."))
    [target] = [pid for pid, views in posts if views > 50_000]
    _, key = await create_account(db, credits=100)
    a = (await analyse(client, runtime, key, target, app))["analysis"]

    c = a["comparison"]
    assert c["group"] == "niche" and c["reason"] == (
        "the creator has no other outlier to compare with")
    # Six vegan cooks of similar size, not the big one: their 60 posts, 12 of them outliers.
    assert (c["creatorCount"], c["postCount"], c["outlierCount"]) == (6, 60, 12)
    assert c["followerRange"] == [2000, 10000] and c["categoryId"].startswith("food")
    assert "60 posts by 6 " in c["text"] and "creators of 2K-10K followers" in c["text"]
    assert c["text"] in a["summary"]
    # Its length is what it shares with the niche's outliers, with the numbers behind it.
    [short] = [f for f in a["findings"] if f["feature"] == "durationSeconds"]
    assert short["kind"] == "unusual" and short["comparedWith"] == "niche"
    assert short["postCount"] == 60 and short["percentile"] <= 10
    assert short["outliers"] == {"postCount": 12, "count": 12, "share": 1.0}
    assert short["others"] == {"postCount": 48, "count": 0, "share": 0.0}
    assert short["text"].startswith(f"It runs {SHORT:g} s: shorter than 80% of 60 posts by 6")
    assert f"(their median: {LONG:g} s)" in short["text"]
    assert "All 12 outliers among them are shorter or equal, against none of the 48" in (
        short["text"])
    # The summary names the comparison once, then says "those posts".
    assert (f"It runs {SHORT:g} s: shorter than 80% of those posts (their median: {LONG:g} s)."
            " All 12 outliers among them") in a["summary"]
    # Its hook was heard and shown; the niche's were not measured that way, so the hook is
    # set against the creator's own analysed videos, which hold no outlier.
    hook = next(f for f in a["features"] if f["name"] == "hookType")
    assert hook["comparedWith"] == "creator" and hook["baseline"]["postCount"] == 14
    assert not any(LITERALS.search(t) for t in texts(a)), texts(a)


async def test_a_spoken_feature_is_compared_only_among_transcribed_posts(
    runtime, client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, AT)
    handle = "said.not.written"
    snaps = [post(handle, i, 2 + i / 2, hit=False) for i in range(20)]
    snaps += [post(handle, 50 + i, 1.25 + i * 4, hit=True) for i in range(3)]
    await ingest(db, crawl(handle, snaps))
    posts = await ids_of(db, handle)
    outliers = [pid for pid, views in posts if views > 50_000]
    ordinary = [pid for pid, views in posts if views <= 50_000]
    # Only the outliers were transcribed, and they ask for a follow out loud (the caption
    # never does).
    for pid in outliers:
        await give_media(db, pid, speech("Here is dinner.", rest="Follow for more recipes."))
    _, key = await create_account(db, credits=100)
    a = (await analyse(client, runtime, key, outliers[-1], app))["analysis"]
    rows = {f["name"]: f for f in a["features"]}
    spoken = rows["spokenCallToAction"]
    # Measured on 2 of the 22 other posts: not compared with the 20 caption-only ones.
    assert spoken["value"] is True and spoken["baseline"] is None
    assert spoken["coverage"] == {"measured": 2, "posts": 22, "method": "speech"}
    assert "spoken call to action (2 of 22)" in a["summary"]
    assert not [f for f in a["findings"] if f["feature"] == "spokenCallToAction"]
    # The caption's call to action is measured on every post alike.
    assert rows["callToAction"]["value"] is False
    assert rows["callToAction"]["baseline"]["postCount"] == 22

    # Once enough ordinary posts are transcribed too, it is measured on like posts.
    for pid in ordinary[:MIN_MEASURED]:
        await give_media(db, pid, speech("Here is dinner.", rest="Bake it for twenty minutes."))
    a = (await analyse(client, runtime, key, outliers[-1], app))["analysis"]
    spoken = next(f for f in a["features"] if f["name"] == "spokenCallToAction")
    assert spoken["baseline"]["postCount"] == MIN_MEASURED + 2 and spoken["coverage"] == {
        "measured": MIN_MEASURED + 2, "posts": 22, "method": "speech"}
    [said] = [f for f in a["findings"] if f["feature"] == "spokenCallToAction"]
    assert said["kind"] == "shared" and said["postCount"] == MIN_MEASURED + 2
    assert said["outliers"]["count"] == 2 and said["others"]["count"] == 0
    assert said["text"] == (
        "It has a spoken call to action, like both outliers among the creator's "
        f"{MIN_MEASURED + 2} other transcribed posts; none of the {MIN_MEASURED} other "
        "posts do.")
    assert not any(LITERALS.search(t) for t in texts(a)), texts(a)


def test_the_niche_caption_is_what_the_classifier_reads() -> None:
    from sors.platforms import taxonomy

    assert taxonomy.classify([CAPTION] * 5)[0].startswith("food")
