"""The live adapter: its handle rule, media through the platforms' hosts, and the live smoke
tests (network; excluded by default)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from sors.config import Settings
from sors.platforms.base import (
    PostRef,
    ProfileNotFound,
    UnsupportedMedia,
)
from sors.platforms.live import LiveAdapter, normalize_handle
from sors.platforms.live.web import instagram_map as igm
from tests.platforms.live.support import (
    NOW,
    load,
    png_bytes,
    quiet_pacers,
)


def test_normalize_handle_is_the_platforms_one_rule() -> None:
    """The live sources take the handles sors.platforms.handles takes, no more."""
    assert normalize_handle("tiktok", " @Fit.Anna ") == "fit.anna"
    assert normalize_handle("youtube", "@CookWithSam") == "cookwithsam"
    assert normalize_handle("instagram", "cook_with.sam") == "cook_with.sam"
    for platform, bad in [
        ("tiktok", "a"),
        ("instagram", "no spaces"),
        ("youtube", "x/y"),
        ("x", "abc"),
        ("tiktok", "fit.anna."),  # TikTok handles do not end with '.'
        ("instagram", "cook..sam"),  # nor do Instagram's hold '..'
        ("instagram", ".cooksam"),
    ]:
        with pytest.raises(ProfileNotFound):
            normalize_handle(platform, bad)


async def test_instagram_carousel_media(tmp_path: Path) -> None:
    post = igm.map_instagram_post(load("instagram/post_carousel.json"))
    assert post is not None

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.host.endswith("cdninstagram.com")
        if request.url.path.endswith(".mp4"):
            return httpx.Response(
                200, content=b"\x00\x00\x00\x18ftypmp42", headers={"content-type": "video/mp4"}
            )
        return httpx.Response(200, content=png_bytes(10, 12), headers={"content-type": "image/png"})

    ref = PostRef(
        platform="instagram",
        platform_post_id=post.platform_post_id,
        url=post.url,
        content_type="carousel",
        extra=dict(post.extra),
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        adapter = LiveAdapter(Settings(), http_client=http, pacers=quiet_pacers())
        files = await adapter.fetch_media(ref, tmp_path / "media", now=NOW)
    assert [(f.kind, f.position, f.content_type) for f in files] == [
        ("image", 0, "image/png"),
        ("video", 1, "video/mp4"),
        ("image", 2, "image/png"),
    ]
    assert files[0].width == 10 and files[0].height == 12
    assert files[1].path.suffix == ".mp4"


async def test_media_refuses_oversized_files(tmp_path: Path) -> None:
    from sors.platforms.live import net

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 5000, headers={"content-type": "image/jpeg"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        with pytest.raises(UnsupportedMedia):
            await net.download(
                http,
                "instagram",
                "https://scontent.cdninstagram.com/x.jpg",
                tmp_path / "x",
                max_bytes=1000,
            )
    assert list(tmp_path.iterdir()) == []  # the partial file is gone


# ---- live smoke tests (network; excluded by default) -----------------------------------


@pytest.mark.live
@pytest.mark.parametrize(
    ("platform", "handle"),
    [("youtube", "youtube"), ("tiktok", "tiktok"), ("instagram", "instagram")],
)
async def test_live_smoke(platform: Any, handle: str) -> None:
    # The SORS_* variables of the environment: a YouTube key, a proxy, a session file.
    adapter = LiveAdapter(Settings())
    try:
        crawl = await adapter.fetch_profile(platform, handle, now=datetime.now(UTC))
    finally:
        await adapter.aclose()
    assert crawl.profile.handle == handle
    assert crawl.posts, "a big official account has recent posts"
    assert all(
        p.content_type in ("video", "slideshow", "reel", "image", "carousel", "short", "live")
        for p in crawl.posts
    )
