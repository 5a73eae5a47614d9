"""The MCP door of the app: Streamable HTTP at /mcp, in the same process as the API.

Stateless and JSON-answering, so any API replica (or uvicorn worker) serves any MCP request
and nothing lives between requests. The caller's API key is checked before the MCP layer
sees the request (401 problem without a valid one); each tool call then runs the real
endpoint in-process with that same key (see `dispatch`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from sors.agents.catalog import ToolSpec, build_tools
from sors.agents.dispatch import Dispatcher
from sors.agents.server import make_server
from sors.api import inprocess
from sors.billing.pricing import get_pricing
from sors.kit.errors import ApiError, Unauthorized, Unavailable
from sors.kit.middleware import extract_api_key
from sors.kit.responses import ProblemResponse

PATH = "/mcp"


class McpDoor:
    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.manager: StreamableHTTPSessionManager | None = None
        self._tools: list[ToolSpec] | None = None
        # The app itself is the transport: a tool call is an in-process HTTP call.
        self.dispatcher = Dispatcher(inprocess.client(app))
        self.server = make_server(self.tools, self.caller)

    async def tools(self) -> list[ToolSpec]:
        if self._tools is None:
            self._tools = build_tools(get_pricing().skills.values(), self.app.openapi())
        return self._tools

    def caller(self, ctx: Any) -> tuple[Dispatcher, str | None]:
        request = getattr(ctx, "request", None)
        key = extract_api_key(request.scope) if request is not None else None
        return self.dispatcher, key

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        # A session manager runs once; each app lifespan gets a fresh one.
        manager = StreamableHTTPSessionManager(self.server, stateless=True, json_response=True)
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request_id = scope.get("state", {}).get("request_id")
        key = extract_api_key(scope)
        database = self.app.state.runtime.database
        principal = await self.app.state.key_cache.resolve(database, key) if key else None
        if principal is None:
            problem = Unauthorized(
                "The API key is unknown or revoked." if key else
                "Send an API key as 'Authorization: Bearer <key>'."
            )
            problem.headers["WWW-Authenticate"] = 'Bearer realm="sors"'
            await _problem(problem, request_id, scope, receive, send)
            return
        if self.manager is None:
            await _problem(Unavailable("The MCP server is not running."), request_id,
                           scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


async def _problem(exc: ApiError, request_id: str | None, scope: Scope, receive: Receive,
                   send: Send) -> None:
    response = ProblemResponse(exc.body(request_id), status_code=exc.status, headers=exc.headers)
    await response(scope, receive, send)


def install(app: FastAPI) -> McpDoor:
    door = McpDoor(app)
    app.state.mcp = door
    app.router.routes.append(
        Route(PATH, endpoint=door, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    return door
