"""Shared by the live sources' tests: offline fixtures (tests/fixtures/platforms, see its
README; synthetic but shaped like the real formats, the yt-dlp and instaloader ones produced
by those libraries' own parsers) and fakes of the libraries the fetchers drive."""

from __future__ import annotations

import copy
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sors.platforms.live.common import (
    FailureInfo,
)
from sors.platforms.live.pacing import PacerRegistry
from sors.platforms.live.web import tiktok_map as ttm
from sors.platforms.live.web.ytdlp import YtDlp, YtDlpFailure

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "platforms"
NOW = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)


def load(rel: str) -> Any:
    return json.loads((FIX / rel).read_text())


def at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def quiet_pacers() -> PacerRegistry:
    clock = FakeClock()
    return PacerRegistry(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)


def failure(message: str, status: int | None = None) -> YtDlpFailure:
    return YtDlpFailure(FailureInfo(message=message, status=status))


class FakeYtDlp(YtDlp):
    """Answers by URL: a dict, an exception, or a callable of the extractor instance."""

    def __init__(self, answers: dict[Any, Any]) -> None:  # no yt-dlp options: nothing runs
        self.answers = answers
        self.calls: list[tuple[str, str]] = []

    def _answer(self, kind: str, url: str, ie: Any) -> dict[str, Any]:
        self.calls.append((kind, url))
        answer = self.answers.get((kind, url), self.answers.get(url))
        if callable(answer):
            answer = answer(ie)
        if isinstance(answer, BaseException):
            raise answer
        if answer is None:
            raise failure("Unable to download webpage: HTTP Error 404: Not Found", 404)
        return copy.deepcopy(answer)

    async def extract(self, url: str, *, ie: Any = None, **_: Any) -> dict[str, Any]:
        return self._answer("extract", url, ie)

    async def download(
        self, url: str, dest_dir: Path, *, ie: Any = None, **_: Any
    ) -> dict[str, Any]:
        return self._answer("download", url, ie)


def png_bytes(width: int = 4, height: int = 6) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


def tiktok_user_detail() -> dict[str, Any]:
    """The `webapp.user-detail` object of a recorded TikTok profile page."""
    scope = ttm.extract_universal_data((FIX / "tiktok/profile_page.html").read_text())
    return scope["webapp.user-detail"]


def tiktok_listing_entry(post_id: str) -> dict[str, Any]:
    return next(e for e in load("tiktok/ytdlp_user_listing.json")["entries"] if e["id"] == post_id)
