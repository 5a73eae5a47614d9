"""The request log never holds what opens something without a key: signed tokens in paths
(media links, shared boards, alert links) and checkout ids are written as `…`, and the query
string (an invitation's `?token=`) is not written at all."""

from __future__ import annotations

import json

import httpx
import pytest
from structlog.testing import CapturingLogger

from sors.kit import middleware
from sors.kit.middleware import loggable_path


@pytest.fixture
def request_log(monkeypatch) -> CapturingLogger:
    captured = CapturingLogger()
    monkeypatch.setattr(middleware, "log", captured)
    return captured


def _lines(log: CapturingLogger) -> list[str]:
    return [json.dumps({"event": c.args[0] if c.args else None, **c.kwargs}) for c in log.calls]


async def test_signed_tokens_and_checkout_ids_never_reach_the_request_log(
    client: httpx.AsyncClient, app, request_log: CapturingLogger
) -> None:
    signer = app.state.signer
    media = signer.sign("media", {"k": "posts/x/video-00.mp4", "t": "video/mp4", "e": 1})
    board = signer.sign("board-share", {"b": "brd_x", "n": "nonce"})
    stop = signer.sign("alert-stop", {"a": ["alr_x"]})
    invite = signer.sign("member-invite", {"m": "mem_x"})
    paths = [f"/media/{media}", f"/api/v1/shared/boards/{board}", f"/alerts/stop/{stop}",
             f"/members/accept?token={invite}", "/checkout/cs_01jsecretsession/pay",
             "/subscribe/sck_01jsecretcheckout"]
    for path in paths:
        await client.get(path)

    lines = _lines(request_log)
    logged = [json.loads(line)["path"] for line in lines if '"event": "request"' in line]
    assert logged == ["/media/…", "/api/v1/shared/boards/…", "/alerts/stop/…",
                      "/members/accept", "/checkout/…/pay", "/subscribe/…"]
    for secret in (media, board, stop, invite, "cs_01jsecretsession", "sck_01jsecretcheckout"):
        assert all(secret not in line for line in lines), secret


def test_ordinary_paths_are_logged_as_they_are() -> None:
    for path in ("/api/v1/posts/pst_01jc7m0c2v8m3k2q3w4e5r6t7y", "/app/static/htmx.min.js",
                 "/docs/assets/swagger-ui-bundle.js", "/checkout/keyless", "/app/outliers",
                 "/api/v1/jobs/job_01jc7m0c2v8m3k2q3w4e5r6t7y"):
        assert loggable_path(path) == path
