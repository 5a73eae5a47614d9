"""The simulated world behind the adapter interface: profiles, media made from the
re-derived posts; and the registry that picks the adapter."""

from __future__ import annotations

import sys
import types
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from sors.config import Settings
from sors.platforms.base import (
    MediaFile,
    PostNotFound,
    PostRef,
    ProfileNotFound,
    UnsupportedMedia,
)
from sors.platforms.registry import get_adapter
from sors.platforms.sim import SimAdapter, SimWorld, posts
from tests.platforms.sim_support import NOW, deleted_slots

DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def world() -> SimWorld:
    return SimWorld(0)


@pytest.fixture
def fake_render(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """A stand-in for sim/render.py that records its calls instead of running ffmpeg."""
    calls: list[tuple[str, Any]] = []

    def render_video(
        scenes: list[str],
        out_path: Path,
        *,
        seconds_per_scene: float | None = None,
        width: int = 360,
        height: int = 640,
    ) -> MediaFile:
        calls.append(
            (
                "video",
                {
                    "scenes": scenes,
                    "out": out_path,
                    "sps": seconds_per_scene,
                    "size": (width, height),
                },
            )
        )
        return MediaFile("video", out_path, "video/mp4", width=width, height=height)

    def render_slides(
        slides: list[str], out_dir: Path, *, width: int = 720, height: int = 720
    ) -> list[MediaFile]:
        calls.append(("slides", {"slides": slides, "out": out_dir, "size": (width, height)}))
        return [
            MediaFile("image", out_dir / f"{i}.jpg", "image/jpeg", position=i)
            for i in range(len(slides))
        ]

    module = types.ModuleType("sors.platforms.sim.render")
    module.render_video = render_video  # type: ignore[attr-defined]
    module.render_slides = render_slides  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sors.platforms.sim.render", module)
    return calls


def _first(snapshot: Any, content_type: str) -> Any:
    return next(p for p in snapshot.posts if p.content_type == content_type)


async def test_adapter_fetch_profile(world: SimWorld) -> None:
    adapter = SimAdapter(world)
    assert await adapter.fetch_profile("tiktok", "mia.bakes", now=NOW) == world.crawl(
        "tiktok", "mia.bakes", NOW
    )
    with pytest.raises(ProfileNotFound):
        await adapter.fetch_profile("tiktok", "ghost.kitchen", now=NOW)


async def test_adapter_renders_videos_from_the_rederived_script(
    world: SimWorld, fake_render: list, tmp_path: Path
) -> None:
    adapter = SimAdapter(world)
    post = _first(world.crawl("tiktok", "mia.bakes", NOW), "video")
    # No extra: the adapter finds the script again from the world.
    ref = PostRef("tiktok", post.platform_post_id, post.url, "video", handle="mia.bakes")
    files = await adapter.fetch_media(ref, tmp_path, now=NOW)
    assert [f.kind for f in files] == ["video"]
    kind, call = fake_render[0]
    assert kind == "video"
    assert call["scenes"] == post.extra["script"]
    assert call["sps"] == post.extra["seconds_per_scene"]
    assert call["size"] == (360, 640)


async def test_adapter_youtube_gives_a_thumbnail_and_the_video(
    world: SimWorld, fake_render: list, tmp_path: Path
) -> None:
    post = _first(world.crawl("youtube", "cook.sam", NOW), "video")
    ref = PostRef(
        "youtube",
        post.platform_post_id,
        post.url,
        "video",
        handle="cook.sam",
        extra=dict(post.extra),
    )
    files = await SimAdapter(world).fetch_media(ref, tmp_path, now=NOW)
    assert [f.kind for f in files] == ["thumbnail", "video"]
    assert fake_render[0][1]["size"] == (640, 360)


async def test_adapter_renders_slides(world: SimWorld, fake_render: list, tmp_path: Path) -> None:
    post = _first(world.crawl("instagram", "cook.sam", NOW), "carousel")
    ref = PostRef("instagram", post.platform_post_id, post.url, "carousel", handle="cook.sam")
    files = await SimAdapter(world).fetch_media(ref, tmp_path, now=NOW)
    assert [f.position for f in files] == list(range(len(post.extra["slides"])))
    assert fake_render[0][1]["slides"] == post.extra["slides"]


async def test_adapter_without_handle_uses_the_kept_texts(
    world: SimWorld, fake_render: list, tmp_path: Path
) -> None:
    adapter = SimAdapter(world)
    ref = PostRef(
        "youtube",
        "dQw4w9WgXcQ",
        "https://youtu.be/dQw4w9WgXcQ",
        "short",
        extra={"script": ["One.", "Two.", "Three."]},
    )
    files = await adapter.fetch_media(ref, tmp_path, now=NOW)
    assert fake_render[0][1]["scenes"] == ["One.", "Two.", "Three."]
    assert files[-1].kind == "video"
    with pytest.raises(PostNotFound):
        await adapter.fetch_media(
            PostRef("youtube", "dQw4w9WgXcQ", "u", "short"), tmp_path, now=NOW
        )
    with pytest.raises(UnsupportedMedia):
        await adapter.fetch_media(
            PostRef("tiktok", "1" * 19, "u", "video", extra={"slides": ["x"]}), tmp_path, now=NOW
        )


async def test_adapter_has_no_media_for_deleted_posts(
    world: SimWorld, fake_render: list, tmp_path: Path
) -> None:
    slot = deleted_slots(world, "tiktok", "mia.bakes")[-1]
    pid = posts.post_id("tiktok", slot)
    ref = PostRef(
        "tiktok", pid, f"https://www.tiktok.com/@mia.bakes/video/{pid}", "video", handle="mia.bakes"
    )
    with pytest.raises(PostNotFound):
        await SimAdapter(world).fetch_media(ref, tmp_path, now=NOW)
    assert fake_render == []


def test_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = get_adapter(Settings(platform_source="sim", sim_seed=7))
    assert isinstance(sim, SimAdapter) and sim.world.seed == 7
    seeded = get_adapter(Settings(platform_source="sim"), sim_seed=4)
    assert isinstance(seeded, SimAdapter) and seeded.world.seed == 4

    from sors.platforms.live.pacing import PacerRegistry
    from sors.platforms.shared_pacing import SharedPacerRegistry

    live_module = types.ModuleType("sors.platforms.live")

    class LiveAdapter:
        def __init__(self, settings: Any, *, pacers: Any = None) -> None:
            self.settings = settings
            self.pacers = pacers

    live_module.LiveAdapter = LiveAdapter  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sors.platforms.live", live_module)
    settings = Settings(platform_source="live")
    live = get_adapter(settings)
    assert isinstance(live, LiveAdapter) and live.settings is settings
    # Without a database to share through, each process paces alone; with one, all share.
    assert isinstance(live.pacers, PacerRegistry)
    shared = get_adapter(settings, db=object())
    assert isinstance(shared.pacers, SharedPacerRegistry)  # type: ignore[attr-defined]

    with pytest.raises(ValueError):
        get_adapter(types.SimpleNamespace(platform_source="carrier-pigeon"))
