"""Media is only ever images, video and audio: a platform host answering HTML or SVG is
refused when media are downloaded (so nothing of it is stored or charged), and a media link
serves only allow-listed types, never sniffed, sandboxed, inline only for what the console
embeds."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from sors.catalog.ingest.service import ingest_crawls
from sors.config import Settings
from sors.enrichment import tasks
from sors.enrichment.storage import LocalMediaStore, get_media_store
from sors.platforms.base import (
    CrawlSnapshot,
    PostRef,
    PostSnapshot,
    ProfileSnapshot,
    UnsupportedMedia,
)
from sors.platforms.live import LiveAdapter
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import rows
from tests.platforms.live.support import NOW, png_bytes, quiet_pacers

HOSTILE = {
    "text/html": b"<html><script>fetch('/app/credits')</script></html>",
    "image/svg+xml": b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
}


VIDEO_ID = "Mn7Op9Qr1St"


def _cdn_answering(content_type: str) -> httpx.MockTransport:
    """YouTube's image host, answering every thumbnail URL with `content_type`."""
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "i.ytimg.com", request.url
        return httpx.Response(200, content=HOSTILE[content_type],
                              headers={"content-type": content_type})

    return httpx.MockTransport(handler)


def _video(published: datetime) -> PostSnapshot:
    return PostSnapshot(
        platform="youtube", platform_post_id=VIDEO_ID,
        url=f"https://www.youtube.com/watch?v={VIDEO_ID}", content_type="video",
        caption="a video", published_at=published, duration_seconds=300.0, views=1000,
        likes=50, comments=5, shares=None,
        thumbnail_url=f"https://i.ytimg.com/vi/{VIDEO_ID}/hqdefault.jpg",
    )


@pytest.mark.parametrize("content_type", sorted(HOSTILE))
async def test_a_platform_host_answering_html_or_svg_is_refused(
    tmp_path: Path, content_type: str
) -> None:
    post = _video(NOW - timedelta(days=1))
    ref = PostRef(platform="youtube", platform_post_id=VIDEO_ID, url=post.url,
                  content_type="video", extra={"thumbnail_url": post.thumbnail_url})
    async with httpx.AsyncClient(transport=_cdn_answering(content_type)) as http:
        adapter = LiveAdapter(Settings(), http_client=http, pacers=quiet_pacers())
        with pytest.raises(UnsupportedMedia, match=re.escape(content_type)):
            await adapter.fetch_media(ref, tmp_path / "media", now=NOW)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))  # not a byte written


async def test_a_media_job_whose_host_answers_html_stores_nothing_and_refunds(
    client: httpx.AsyncClient, db, runtime, monkeypatch
) -> None:
    profile = ProfileSnapshot(platform="youtube", handle="cdnhostile",
                              platform_user_id="UCcdnhostile", display_name="Hostile",
                              bio=None, avatar_url=None, follower_count=1000)
    async with db.transaction() as s:
        await ingest_crawls(s, [CrawlSnapshot(
            profile=profile, posts=(_video(NOW - timedelta(days=1)),), fetched_at=NOW)])
    [stored] = await rows(db, "SELECT id FROM posts WHERE platform = 'youtube'")
    account_id, key = await create_account(db, credits=10)
    http = httpx.AsyncClient(transport=_cdn_answering("text/html"))
    live = LiveAdapter(Settings(), http_client=http, pacers=quiet_pacers())
    monkeypatch.setattr(tasks, "adapter_for", lambda ctx: live)  # the platform, live
    try:
        r = await client.post("/api/v1/posts/media", json={"postId": stored["id"]},
                              headers=auth(key))
        assert r.status_code == 200 and r.headers["x-credits-charged"] == "3", r.text
        await run_jobs_until_idle(runtime, timeout=60)
    finally:
        await http.aclose()
    [job] = await rows(db, "SELECT status, error, credits_refunded FROM jobs "
                           "WHERE id = :j", j=r.json()["jobRef"])
    assert job["status"] == "failed" and job["error"]["code"] == "media_unavailable"
    assert "text/html" in job["error"]["message"] and job["credits_refunded"] == 3
    assert await rows(db, "SELECT * FROM post_media") == []
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)


def _plant(store: LocalMediaStore, key: str, body: bytes) -> None:
    path = store.path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


async def test_media_links_serve_only_media_types_never_sniffed_and_sandboxed(
    client: httpx.AsyncClient, runtime, settings, app
) -> None:
    store = get_media_store(settings, signer=app.state.signer)
    assert isinstance(store, LocalMediaStore)
    await runtime.clock.refresh()
    expires = runtime.now() + timedelta(hours=1)
    # Files of any type, as a store written before the allow-list may hold them.
    refused = {**HOSTILE, "application/xml": b"<x/>", "text/plain": b"hello"}
    for i, (ctype, body) in enumerate(refused.items()):
        _plant(store, f"posts/hostile/file-{i}", body)
        r = await client.get(f"/media/{store.token(f'posts/hostile/file-{i}', ctype, expires)}")
        assert r.status_code == 415, (ctype, r.status_code)
        assert r.json()["code"] == "unsupported_media_type"
        assert r.headers["content-type"] == "application/problem+json"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["content-security-policy"] == "sandbox"
        assert body not in r.content

    _plant(store, "posts/ok/image-00.png", png_bytes(4, 6))
    r = await client.get(f"/media/{store.token('posts/ok/image-00.png', 'image/png', expires)}")
    assert r.status_code == 200 and r.content == png_bytes(4, 6)
    assert r.headers["content-type"] == "image/png"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["content-security-policy"] == "sandbox"
    assert r.headers["content-disposition"].startswith("inline")

    # A media type the console does not embed downloads instead of opening.
    _plant(store, "posts/ok/video-00.mov", b"\x00\x00\x00\x14ftypqt  ")
    token = store.token("posts/ok/video-00.mov", "video/quicktime", expires)
    r = await client.get(f"/media/{token}")
    assert r.status_code == 200 and r.headers["content-disposition"].startswith("attachment")
    # Refusals carry the same headers: an unknown link is 404, sandboxed.
    r = await client.get("/media/not-a-token")
    assert r.status_code == 404 and r.headers["content-security-policy"] == "sandbox"
