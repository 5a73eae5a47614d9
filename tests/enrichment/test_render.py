"""The simulated platforms' media: real, decodable, deterministic files."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from sors.platforms.sim import render
from sors.platforms.sim import tools as toolcheck
from sors.platforms.sim.tools import ToolMissing

from .conftest import SCENES, SLIDES, Rendered


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_video_is_h264_aac_mp4_with_the_declared_shape(rendered_video: Rendered) -> None:
    media = rendered_video.media
    print(f"\nrender of a {len(SCENES)}-scene video: {rendered_video.seconds:.2f} s")
    assert media.kind == "video"
    assert media.content_type == "video/mp4"
    assert (media.width, media.height) == (360, 640)
    with av.open(str(media.path)) as container:
        video = container.streams.video[0]
        audio = container.streams.audio[0]
        assert video.codec_context.name == "h264"
        assert audio.codec_context.name == "aac"
        assert (video.codec_context.width, video.codec_context.height) == (360, 640)
        assert container.duration is not None
        seconds = container.duration / av.time_base
    assert media.duration_seconds is not None
    assert abs(seconds - media.duration_seconds) < 0.1
    # Every scene is at least as long as its sentence takes to say, and at least 1.5 s.
    assert media.duration_seconds >= len(SCENES) * render.MIN_SCENE_SECONDS


def test_same_input_same_bytes_and_minimum_scene_length(tmp_path: Path) -> None:
    scenes = ["Hi.", "Bye."]
    a = render.render_video(scenes, tmp_path / "a.mp4", seconds_per_scene=2.5)
    b = render.render_video(scenes, tmp_path / "b.mp4", seconds_per_scene=2.5)
    assert _sha(a.path) == _sha(b.path)
    assert a.duration_seconds is not None and a.duration_seconds >= 5.0
    assert not list(tmp_path.glob(".*.part"))  # written atomically


def test_slides_are_jpegs_in_order(rendered_slides, tmp_path: Path) -> None:
    assert [m.position for m in rendered_slides] == list(range(len(SLIDES)))
    for media in rendered_slides:
        assert media.kind == "image"
        assert media.content_type == "image/jpeg"
        with Image.open(media.path) as image:
            assert image.format == "JPEG"
            assert image.size == (media.width, media.height) == (720, 720)
    again = render.render_slides(SLIDES, tmp_path)
    assert [_sha(m.path) for m in again] == [_sha(m.path) for m in rendered_slides]


def test_thumbnail(tmp_path: Path) -> None:
    media = render.render_thumbnail("Morning habits", tmp_path / "thumb.jpg")
    assert media.kind == "thumbnail"
    assert media.content_type == "image/jpeg"
    with Image.open(media.path) as image:
        assert image.size == (480, 360)


def test_long_text_is_wrapped_inside_the_card() -> None:
    text = " ".join(["remarkably"] * 40)
    bg = render.PALETTE[0]
    card = np.asarray(render.draw_card(text, 360, 640, bg)).astype(int)
    margin = 12
    border = np.concatenate(
        [
            card[:margin].reshape(-1, 3),
            card[-margin:].reshape(-1, 3),
            card[:, :margin].reshape(-1, 3),
            card[:, -margin:].reshape(-1, 3),
        ]
    )
    assert (np.abs(border - np.array(bg)).max(axis=1) == 0).all()
    assert (np.abs(card - np.array(bg)).max(axis=2) > 0).any()  # but something was drawn


def test_neighbouring_scenes_have_different_backgrounds() -> None:
    colors = render.scene_colors(25, color_offset=3)
    assert all(a != b for a, b in itertools.pairwise(colors))


def test_a_missing_program_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real_which = toolcheck.shutil.which
    monkeypatch.setattr(
        toolcheck.shutil, "which", lambda name: None if name == "espeak-ng" else real_which(name)
    )
    with pytest.raises(ToolMissing) as caught:
        render.render_video(["Hello."], tmp_path / "x.mp4")
    assert caught.value.code == "tool_missing"
    assert caught.value.tool == "espeak-ng"
    assert "apt-get install espeak-ng" in caught.value.message
    assert toolcheck.check_media_tools()["espeak-ng"] is None


def test_rejects_empty_and_odd_sizes(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        render.render_video([], tmp_path / "x.mp4")
    with pytest.raises(ValueError):
        render.render_video(["Hi."], tmp_path / "x.mp4", width=361)
