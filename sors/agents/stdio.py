"""`sors mcp`: the same MCP server over stdio, for local agents, in front of a sors API.

The tool list comes from that API's own price list and OpenAPI document, and each tool call
is an HTTP call to it with SORS_API_KEY, so a local agent is billed exactly like any
other client of that API.
"""

from __future__ import annotations

from typing import Any

import httpx
from mcp.server.stdio import stdio_server

from sors.agents.catalog import ToolSpec, build_tools
from sors.agents.dispatch import Dispatcher
from sors.agents.server import make_server

DEFAULT_API_URL = "http://127.0.0.1:8000"


async def serve_stdio(api_url: str, api_key: str) -> None:
    async with httpx.AsyncClient(base_url=api_url.rstrip("/"), timeout=120) as http:
        pricing = await http.get("/api/v1/pricing")
        pricing.raise_for_status()
        openapi = await http.get("/api/v1/openapi.json")
        openapi.raise_for_status()
        tools = build_tools(pricing.json(), openapi.json())
        dispatcher = Dispatcher(http)

        async def tool_list() -> list[ToolSpec]:
            return tools

        def caller(ctx: Any) -> tuple[Dispatcher, str | None]:
            return dispatcher, api_key

        server = make_server(tool_list, caller)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
