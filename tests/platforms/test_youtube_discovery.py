"""Live YouTube discovery through the Data API, against a loopback server answering with
recorded responses: `search.list` for channels (tests/fixtures/platforms/youtube/
api_search_channels_recorded.json) and `channels.list` for their handles
(api_channels_snippet_recorded.json); see the fixtures README for where each came from."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

import pytest

from sors.config import Settings
from sors.platforms.base import DiscoveryUnsupported

FIXTURES = Path(__file__).parents[1] / "fixtures" / "platforms" / "youtube"
NOW = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


class _DataAPI(BaseHTTPRequestHandler):
    calls: ClassVar[list[tuple[str, dict[str, list[str]], str | None]]] = []

    def do_GET(self) -> None:
        url = urlparse(self.path)
        type(self).calls.append((url.path, parse_qs(url.query), self.headers.get("X-Goog-Api-Key")))
        name = {"/search": "api_search_channels_recorded.json",
                "/channels": "api_channels_snippet_recorded.json"}[url.path]
        body = (FIXTURES / name).read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def data_api(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DataAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr("sors.platforms.live.api.client.API_BASE",
                        f"http://127.0.0.1:{server.server_address[1]}")
    _DataAPI.calls = []
    yield _DataAPI.calls
    server.shutdown()


def _adapter(key: str | None):
    from sors.platforms.live import LiveAdapter, PacerRegistry, PacingPolicy

    settings = Settings(youtube_api_key=key, youtube_discovery_searches_per_day=2,
                        http_proxy=None)
    fast = PacerRegistry({"youtube_api": PacingPolicy(min_interval=0.0)})
    return LiveAdapter(settings, pacers=fast)


async def test_new_channels_by_search_then_handles_within_the_daily_quota(data_api) -> None:
    adapter = _adapter("test-key")
    since = NOW - timedelta(hours=1)
    handles = await adapter.discover("youtube", "food.baking", since=since, now=NOW, limit=10)
    assert handles == ["seantilson8728"]
    (search_path, search, key), (channels_path, channels, _) = data_api
    assert (search_path, channels_path, key) == ("/search", "/channels", "test-key")
    assert search["type"] == ["channel"] and search["order"] == ["date"]
    assert search["q"] == ["Baking"] and search["publishedAfter"] == ["2026-11-23T05:00:00Z"]
    # The channel ids of the search answer are what channels.list is asked about.
    assert channels["id"] == ["UChuLeaTGRcfzo0UjL-2qSbQ,UCnJ0mt5Cgx4ER_LhTijG_4A,"
                              "UCSZy7dboa_o9X8itlpQx7yw"]

    # Two searches a day here: the third read that day asks nothing and finds nothing.
    assert await adapter.discover("youtube", None, since=since, now=NOW, limit=10)
    calls = len(data_api)
    assert await adapter.discover("youtube", None, since=since, now=NOW, limit=10) == []
    assert len(data_api) == calls
    nxt = NOW + timedelta(days=1)
    assert await adapter.discover("youtube", None, since=NOW, now=nxt, limit=10)


async def test_no_listing_without_a_key_nor_on_tiktok_and_instagram(data_api) -> None:
    with pytest.raises(DiscoveryUnsupported):
        await _adapter(None).discover("youtube", None, since=NOW, now=NOW, limit=5)
    for platform in ("tiktok", "instagram"):
        with pytest.raises(DiscoveryUnsupported):
            await _adapter("k").discover(platform, None, since=NOW, now=NOW, limit=5)
    assert data_api == []
