"""The one in-process client of the API, used by the doors that are not HTTP (the console's
pages, the MCP tools): an httpx transport whose "network" is the app itself.

A request goes through the whole ASGI app — middleware (key, rate limit, request id),
validation, the endpoint, the paid unit of work and its charge, the credit headers — exactly
as a request from outside does. A caller that holds a signed-in principal rather than a raw
key (the console) names it in the request's extensions (`PRINCIPAL`); it travels in the ASGI
scope, which no network request can set, and is resolved like a sent key.
"""

from __future__ import annotations

import httpx
from starlette.types import ASGIApp, Message, Scope

from sors.kit.middleware import IN_PROCESS_PRINCIPAL

PRINCIPAL = "sors.principal"  # request extension: the Principal to call as
CLIENT = ("127.0.0.1", 0)
BASE_URL = "http://sors.internal"


class InProcessTransport(httpx.AsyncBaseTransport):
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": request.method,
            "scheme": request.url.scheme,
            "path": request.url.path,
            "raw_path": request.url.raw_path.split(b"?", 1)[0],
            "query_string": request.url.query,
            "root_path": "",
            "headers": [(k.lower(), v) for k, v in request.headers.raw],
            "client": CLIENT,
            "server": (request.url.host, request.url.port or 80),
            "state": {},
        }
        principal = request.extensions.get(PRINCIPAL)
        if principal is not None:
            scope[IN_PROCESS_PRINCIPAL] = principal
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}

        status = 500
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []

        async def send(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return httpx.Response(status, headers=headers, content=b"".join(chunks), request=request)


def client(app: ASGIApp) -> httpx.AsyncClient:
    """An httpx client whose requests are served by `app` in this process."""
    return httpx.AsyncClient(transport=InProcessTransport(app), base_url=BASE_URL)
