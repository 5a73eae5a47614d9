"""A caption (a YouTube title) rewritten after publishing: the crawl that sees it keeps
both versions, the post's history shows the views per hour before and after, and accounts
monitoring the creator get `post.changed`."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sors.jobs import service as jobs
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import hand_crawl, hand_post, ingest, rows, set_time
from tests.webhooks.helpers import create_endpoint

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
HANDLE = "retitle.me"
PUBLISHED = T0 - timedelta(hours=10)


def crawl_at(at: datetime, views: int, caption: str):
    post = replace(hand_post(HANDLE, 1, PUBLISHED, views=views), caption=caption)
    return hand_crawl(HANDLE, [post], at)


class RetitlingAdapter:
    """The creator's page as a crawl at `now` sees it: the new title, more views."""

    def __init__(self, views: int, caption: str) -> None:
        self.views, self.caption = views, caption

    async def fetch_profile(self, platform, handle, *, now):
        return crawl_at(now, self.views, self.caption)


async def test_a_rewritten_title_is_kept_shown_in_history_and_announced(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    await set_time(db, T0)
    # 0 views at publication, 1,000 at T0 (10 h: 100/h), 1,500 at T0+5 h (the old title).
    profile_id = await ingest(db, crawl_at(T0, 1000, "I tried the 5am routine"))
    await ingest(db, crawl_at(T0 + timedelta(hours=5), 1500, "I tried the 5am routine"))
    _, key = await create_account(db, credits=100)
    ep = await create_endpoint(client, key, receiver.url, events=["post.changed"])
    r = await client.post("/api/v1/tracking", headers=auth(key),
                          json={"profileId": profile_id, "frequency": "daily"})
    assert r.status_code == 200, r.text

    # T0+10 h: a refresh sees the new title.
    seen = T0 + timedelta(hours=10)
    await set_time(db, seen)
    async with db.transaction() as s:
        await jobs.enqueue(s, type="refresh", account_id=None, credits=0, origin="catalog",
                           now=seen, max_attempts=4,
                           payload={"platform": "tiktok", "handle": HANDLE,
                                    "profileId": profile_id}, target=f"tiktok:{HANDLE}")
    adapter = RetitlingAdapter(2500, "I tried the 5am routine for 30 days (it changed me)")
    await run_jobs_until_idle(runtime, adapter=adapter)
    # T0+12 h: 3,500 views: 500/h under the new title.
    await ingest(db, crawl_at(T0 + timedelta(hours=12), 3500, adapter.caption))
    await run_jobs_until_idle(runtime)  # the webhook deliveries

    [post] = await rows(db, "SELECT id FROM posts WHERE profile_id = :p", p=profile_id)
    history = (await client.get(f"/api/v1/posts/{post['id']}/history", headers=auth(key))).json()
    [change] = history["changes"]
    assert change == {
        "field": "caption", "changedAt": "2026-09-01T22:00:00Z",
        "before": "I tried the 5am routine",
        "after": "I tried the 5am routine for 30 days (it changed me)",
        "viewsPerHourBefore": 100.0, "viewsPerHourAfter": 500.0,
    }
    [event] = [r.verify(ep["secret"]) for r in receiver.of_type("post.changed")]
    assert event["data"]["profileId"] == profile_id and event["data"]["handle"] == HANDLE
    [sent] = event["data"]["changes"]
    assert (sent["postId"], sent["before"], sent["after"]) == (
        post["id"], change["before"], change["after"])


def picture(kind: str, quality: int = 90) -> bytes:
    """A real JPEG: a gradient or stripes, as two different thumbnails would differ."""
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 180), "white")
    draw = ImageDraw.Draw(img)
    for x in range(0, 320, 8):
        if kind == "gradient":
            draw.rectangle([x, 0, x + 8, 180], fill=(x * 255 // 320, 80, 160))
        elif (x // 8) % 2:
            draw.rectangle([x, 0, x + 8, 180], fill=(20, 20, 20))
    draw.ellipse([120, 50, 200, 130], fill=(230, 40, 40) if kind == "gradient" else (40, 200, 40))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality)
    return out.getvalue()


class Thumbnails:
    """The platform's thumbnail as the check fetches it, changed by the test."""

    def __init__(self) -> None:
        self.image = picture("gradient")
        self.asked: list[str] = []

    async def fetch_thumbnail(self, platform, url) -> bytes:
        self.asked.append(url)
        return self.image


async def test_a_swapped_thumbnail_is_seen_by_its_hash_kept_and_announced(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver, monkeypatch
) -> None:
    from sors.keeper import schedule

    source = Thumbnails()

    async def adapter(_maker, _settings):
        return source

    monkeypatch.setattr(schedule, "_adapter", adapter)
    await set_time(db, T0)
    thumb = "https://i.ytimg.com/vi/abcdefghijk/hqdefault.jpg"

    def crawl(at: datetime, views: int):
        snap = crawl_at(at, views, "I tried the 5am routine")
        return replace(snap, posts=[replace(p, thumbnail_url=thumb) for p in snap.posts])

    profile_id = await ingest(db, crawl(T0, 1000))
    _, key = await create_account(db, credits=100)
    ep = await create_endpoint(client, key, receiver.url, events=["post.changed"])
    await client.post("/api/v1/tracking", headers=auth(key),
                      json={"profileId": profile_id, "frequency": "daily"})

    async def tick() -> int:
        async with db.transaction() as s:
            return await schedule.thumbnail_changes(s, T0, runtime)

    assert await tick() == 0  # the first look keeps the hash
    assert await tick() == 0 and source.asked == [thumb]  # nothing new crawled: not asked
    # A later crawl, the same picture re-encoded smaller: not a change.
    await ingest(db, crawl(T0 + timedelta(hours=5), 1500))
    source.image = picture("gradient", quality=40)
    assert await tick() == 0
    # The next crawl shows another picture: a change, at that crawl.
    await ingest(db, crawl(T0 + timedelta(hours=10), 2500))
    source.image = picture("stripes")
    assert await tick() == 1
    await ingest(db, crawl(T0 + timedelta(hours=12), 3500))
    await run_jobs_until_idle(runtime)  # webhook deliveries

    [post] = await rows(db, "SELECT id FROM posts WHERE profile_id = :p", p=profile_id)
    history = (await client.get(f"/api/v1/posts/{post['id']}/history", headers=auth(key))).json()
    [change] = history["changes"]
    assert change["field"] == "thumbnail" and change["changedAt"] == "2026-09-01T22:00:00Z"
    assert change["before"] != change["after"] and len(change["after"]) == 16
    assert (change["viewsPerHourBefore"], change["viewsPerHourAfter"]) == (100.0, 500.0)
    [event] = [r.verify(ep["secret"]) for r in receiver.of_type("post.changed")]
    assert event["data"]["changes"][0]["field"] == "thumbnail"
