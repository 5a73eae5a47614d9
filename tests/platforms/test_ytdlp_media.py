from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from sors.platforms.base import UnsupportedMedia
from sors.platforms.live.web.ytdlp import video_media


def test_video_media_maps_what_a_download_wrote(tmp_path: Path) -> None:
    video = tmp_path / "v.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    thumb = tmp_path / "v.jpg"
    Image.new("RGB", (64, 36), "red").save(thumb)
    info = {
        "requested_downloads": [{"filepath": str(video)}],
        "thumbnails": [{"url": "x"}, {"filepath": str(thumb)}],
        "width": 720, "height": 1280, "duration": 31.2,
    }
    files = video_media(info, "TikTok")
    assert [f.kind for f in files] == ["video", "thumbnail"]
    assert files[0].width == 720 and files[0].duration_seconds == 31.2
    assert files[0].content_type == "video/mp4"
    assert (files[1].width, files[1].height) == (64, 36)


def test_video_media_without_a_video_is_unsupported(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedMedia, match="Instagram offered no downloadable video"):
        video_media(
            {"requested_downloads": [{"filepath": str(tmp_path / "missing.mp4")}]}, "Instagram")
