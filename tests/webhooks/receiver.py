"""A real webhook receiver on loopback: a threaded HTTP server that records every request
(headers and raw body) and answers with the status codes it is told to."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook


@dataclass
class Received:
    headers: dict[str, str]
    body: str
    path: str

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    def verify(self, secret: str) -> dict[str, Any]:
        """The payload, if the signature verifies with `secret` (raises otherwise)."""
        return Webhook(secret).verify(self.body, self.headers)

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    statuses: list[int] = field(default_factory=list)  # answered in order; then `default`
    default: int = 200
    delay: float = 0.0
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_status(self) -> int:
        with self.lock:
            return self.statuses.pop(0) if self.statuses else self.default

    def record(self, r: Received) -> None:
        with self.lock:
            self.received.append(r)

    def of_type(self, type_: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.payload["type"] == type_]

    def wait_for(self, predicate, timeout: float = 30.0) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                snapshot = list(self.received)
            if predicate(snapshot):
                return True
            time.sleep(0.05)
        return False


@contextmanager
def running_receiver(**kwargs: Any) -> Iterator[Receiver]:
    holder: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            receiver = holder["r"]
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode()
            headers = {k.lower(): v for k, v in self.headers.items()}
            receiver.record(Received(headers, body, self.path))
            if receiver.delay:
                time.sleep(receiver.delay)
            status = receiver.next_status()
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", receiver.url + "/elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    holder["r"] = Receiver(url=f"http://127.0.0.1:{port}/hook", **kwargs)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder["r"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
