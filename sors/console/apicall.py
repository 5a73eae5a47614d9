"""Console actions dispatched in-process into the API's own routes.

A console page does not reimplement anything: it sends the very request a client would send
to /api/v1/…, through the whole ASGI app (rate limit, idempotency, `SorsRoute`'s unit of
work and charge), with the signed-in principal placed in the scope instead of a raw key. So
the console is charged, limited and validated exactly like the API, and reads what it charged
from the same `X-Credits-*` headers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import orjson
from starlette.requests import Request

from sors.accounts.principal import Principal
from sors.console.auth import SignInRequired
from sors.kit.middleware import IN_PROCESS_PRINCIPAL


@dataclass
class ApiResult:
    status: int
    headers: dict[str, str]
    body: bytes
    _data: Any = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def data(self) -> Any:
        if self._data is None and self.body:
            self._data = orjson.loads(self.body)
        return self._data

    @property
    def charged(self) -> int | None:
        value = self.headers.get("x-credits-charged")
        return int(value) if value is not None else None

    @property
    def balance(self) -> int | None:
        value = self.headers.get("x-credits-balance")
        return int(value) if value is not None else None

    @staticmethod
    def total_charged(*results: ApiResult | None) -> tuple[int | None, int | None]:
        """What several calls of one page charged together, and the balance after the last."""
        done = [r for r in results if r is not None and r.charged is not None]
        if not done:
            return None, None
        return sum(r.charged or 0 for r in done), done[-1].balance

    @property
    def problem(self) -> dict[str, Any] | None:
        if self.ok:
            return None
        data = self.data if self.headers.get("content-type", "").endswith("json") else None
        if isinstance(data, dict):
            return data
        return {"status": self.status, "title": "Error", "detail": self.body[:200].decode(
            "utf-8", "replace")}


async def call(
    request: Request,
    principal: Principal | None,
    method: str,
    path: str,
    *,
    json: Any = None,
    params: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
    accept: str = "application/json",
) -> ApiResult:
    body = b"" if json is None else orjson.dumps(json)
    headers = [(b"accept", accept.encode()), (b"user-agent", b"sors-console")]
    if json is not None:
        headers += [(b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode())]
    if idempotency_key:
        headers.append((b"idempotency-key", idempotency_key.encode()))
    query = urlencode({k: v for k, v in (params or {}).items() if v is not None}, doseq=True)
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": request.url.scheme,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": request.scope.get("client"),
        "server": request.scope.get("server"),
        "state": {},
        IN_PROCESS_PRINCIPAL: principal,
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    status = 500
    response_headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            for k, v in message.get("headers", []):
                response_headers[k.decode("latin-1").lower()] = v.decode("latin-1")
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await request.app(scope, receive, send)
    if status == 401:
        # The session's key was revoked since the cookie was signed: sign the console out.
        raise SignInRequired("revoked")
    return ApiResult(status, response_headers, b"".join(chunks))
