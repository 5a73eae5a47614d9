"""A small OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, scripted answers.

Each POST /v1/chat/completions takes the next queued answer (a JSON remix, raw text, an HTTP
error, or a slow answer) and records the request, so tests can check what the engine sent.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.factories.loopback import LoopbackServer


@dataclass
class Answer:
    content: str | None = None
    status: int = 200
    delay: float = 0.0
    model: str | None = None  # reported model; default: the requested one
    headers: dict[str, str] = field(default_factory=dict)
    error_body: dict[str, Any] | None = None


def json_answer(obj: Any, **kw: Any) -> Answer:
    return Answer(content=json.dumps(obj), **kw)


def text_answer(text: str, **kw: Any) -> Answer:
    return Answer(content=text, **kw)


def http_error(status: int = 500, message: str = "upstream exploded", **kw: Any) -> Answer:
    # retry-after-ms keeps the SDK's own retries (if any) from sleeping in tests.
    headers = {"retry-after-ms": "1", **kw.pop("headers", {})}
    body = {"error": {"message": message, "type": "server_error", "code": None}}
    return Answer(status=status, headers=headers, error_body=body, **kw)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))


class FakeOpenAI:
    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server: LoopbackServer | None = None
        self.port = 0

    # -- scripting ---------------------------------------------------------------------------

    def queue(self, *answers: Answer) -> None:
        with self._lock:
            self.answers.extend(answers)

    def reset(self) -> None:
        with self._lock:
            self.answers.clear()
            self.requests.clear()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- the app -----------------------------------------------------------------------------

    async def _chat(self, request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = {}
        with self._lock:
            self.requests.append(Recorded(request.url.path, dict(request.headers), body))
            answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            answer = http_error(599, "fake server: no answer queued")
        if answer.delay:
            await asyncio.sleep(answer.delay)
        if answer.status != 200:
            return JSONResponse(answer.error_body or {}, answer.status, headers=answer.headers)
        content = answer.content or ""
        return JSONResponse(
            {
                "id": f"chatcmpl-fake-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": answer.model or body.get("model", "unknown"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": len(content) // 4,
                    "total_tokens": 100 + len(content) // 4,
                },
            },
            headers=answer.headers,
        )

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._server = LoopbackServer(self.app())
        self._server.start()
        self.port = self._server.port

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()


def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was just released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
