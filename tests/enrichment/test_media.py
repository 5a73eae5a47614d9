"""download_post_media end to end through HTTP: the media stored for real, handed out as
signed, expiring links on the service clock, the first call after the fetch free."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import httpx
from PIL import Image
from sqlalchemy import text

from sors.enrichment.storage import LocalMediaStore, get_media_store
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle

from .api_support import (
    charged,
    job,
    pick,
    slideshow_post,
    video_post,
)

TX = "/api/v1/transcriptions"
MEDIA = "/api/v1/posts/media"


# ---- download_post_media -----------------------------------------------------------------


def _local(url: str) -> str:
    assert url.startswith("http://testserver/media/"), url
    return url.removeprefix("http://testserver")


async def test_video_media_download_and_links(
    runtime, client: httpx.AsyncClient, db, settings, app
) -> None:
    post = await video_post(db)
    account_id, key = await create_account(db, credits=20)

    r = await client.post(MEDIA, json={"url": post.snap.url}, headers=auth(key))
    assert r.status_code == 200, r.text
    job_ref = r.json()["jobRef"]
    assert r.json() == {"status": "pending", "jobRef": job_ref, "postId": post.id}
    assert charged(r) == 3
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key))
    assert r.json()["jobRef"] == job_ref and charged(r) == 0

    await run_jobs_until_idle(runtime, timeout=300)
    st = await job(client, key, job_ref)
    assert (
        st["status"] == "completed"
        and st["type"] == "media"
        and st["result"] == {"postId": post.id}
    )

    # The first call after the job: ready and free; the next one costs 3 again.
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key))
    assert r.status_code == 200 and charged(r) == 0, r.text
    body = r.json()
    assert body["status"] == "ready" and body["postId"] == post.id
    [item] = body["media"]
    assert item["kind"] == "video" and item["position"] == 0 and item["contentType"] == "video/mp4"
    assert (item["width"], item["height"]) == (360, 640)
    assert abs(item["durationSeconds"] - post.snap.duration_seconds) < 0.5
    assert body["expiresAt"].endswith("Z")
    expires = datetime.fromisoformat(body["expiresAt"].replace("Z", "+00:00"))
    # On the service clock (simulated here, as in the demo), like every other time shown.
    assert timedelta(hours=23) < expires - runtime.now() <= timedelta(hours=24, seconds=5)
    r2 = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key))
    assert r2.json()["status"] == "ready" and charged(r2) == 3
    assert await balance_and_ledger_sum(db, account_id) == (14, 14)

    # The link serves the real file, without an API key.
    got = await client.get(_local(item["url"]))
    assert got.status_code == 200
    assert got.headers["content-type"] == "video/mp4"
    assert got.content[4:8] == b"ftyp" and len(got.content) > 10_000
    assert (await client.head(_local(item["url"]))).status_code == 200

    # A tampered token is unknown; an expired one is gone.
    token = item["url"].rsplit("/", 1)[1]
    tampered = token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")
    bad = await client.get(f"/media/{tampered}")
    assert bad.status_code == 404 and bad.json()["code"] == "not_found"
    store = get_media_store(settings, signer=app.state.signer)
    async with db.session() as s:
        key_name = (
            await s.execute(
                text("SELECT storage_key FROM post_media WHERE post_id=:p"), {"p": post.id}
            )
        ).scalar()
    assert isinstance(store, LocalMediaStore)
    old = store.token(key_name, "video/mp4", runtime.now() - timedelta(seconds=1))
    gone = await client.get(f"/media/{old}")
    assert gone.status_code == 410 and gone.json()["code"] == "link_expired"
    # A token signed for another purpose does not open media.
    other = app.state.signer.sign("unsubscribe", {"k": key_name, "t": "video/mp4", "e": 4102444800})
    assert (await client.get(f"/media/{other}")).status_code == 404


async def test_slideshow_and_youtube_media(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    slides = await slideshow_post(db)
    short = await pick(db, "youtube", "cookwithsam", "short", key=lambda p: p.duration_seconds or 0)
    _, key = await create_account(db, credits=20)
    for p in (slides, short):
        r = await client.post(MEDIA, json={"postId": p.id}, headers=auth(key))
        assert r.json()["status"] == "pending" and charged(r) == 3
    await run_jobs_until_idle(runtime, timeout=300)

    r = await client.post(MEDIA, json={"postId": slides.id}, headers=auth(key))
    media = r.json()["media"]
    assert [m["kind"] for m in media] == ["image"] * len(slides.slides)
    assert [m["position"] for m in media] == list(range(len(slides.slides)))
    for m in media:
        got = await client.get(_local(m["url"]))
        assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
        with Image.open(io.BytesIO(got.content)) as im:
            assert im.format == "JPEG" and im.size == (m["width"], m["height"])

    r = await client.post(MEDIA, json={"postId": short.id}, headers=auth(key))
    [thumb] = r.json()["media"]  # YouTube: the thumbnail only
    assert thumb["kind"] == "thumbnail" and thumb["contentType"] == "image/jpeg"
    got = await client.get(_local(thumb["url"]))
    assert got.status_code == 200 and got.content[:2] == b"\xff\xd8"


async def test_free_follow_up_is_per_account_and_once(
    runtime, client: httpx.AsyncClient, db, settings
) -> None:
    post = await slideshow_post(db)
    _, key1 = await create_account(db, credits=20, email="a@example.com")
    _, key2 = await create_account(db, credits=20, email="b@example.com")
    await client.post(MEDIA, json={"postId": post.id}, headers=auth(key1))
    await run_jobs_until_idle(runtime, timeout=300)
    # Another account did not wait for that job: it pays.
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key2))
    assert r.json()["status"] == "ready" and charged(r) == 3
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key1))
    assert charged(r) == 0
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key1))
    assert charged(r) == 3
    # A job that finished more than 24 hours ago grants nothing.
    _, key3 = await create_account(db, credits=20, email="c@example.com")
    async with db.transaction() as s:
        await s.execute(text("DELETE FROM post_media"))
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key3))
    job_ref = r.json()["jobRef"]
    await run_jobs_until_idle(runtime, timeout=300)
    async with db.transaction() as s:
        await s.execute(
            text("UPDATE jobs SET finished_at = finished_at - interval '25 hours' WHERE id = :j"),
            {"j": job_ref},
        )
    r = await client.post(MEDIA, json={"postId": post.id}, headers=auth(key3))
    assert r.json()["status"] == "ready" and charged(r) == 3
