"""`sors mcp`: the same MCP server over stdio, for local agents, in front of a sors API.

The tool list comes from that API's own price list and OpenAPI document, and each tool call
is an HTTP call to it with SORS_API_KEY, so a local agent is billed exactly like any
other client of that API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from mcp.server.stdio import stdio_server

from sors.agents.catalog import ToolSpec, build_tools
from sors.agents.dispatch import Dispatcher
from sors.agents.server import make_server
from sors.billing.schemas import SkillPrice

DEFAULT_API_URL = "http://127.0.0.1:8000"


def skills_of(price_list: Mapping[str, object]) -> list[SkillPrice]:
    """The skills of a price list as GET /api/v1/pricing answers it (fields a newer API adds
    are left alone)."""
    skills = price_list.get("skills")
    if not isinstance(skills, list):
        raise ValueError("the price list names no skills")
    return [SkillPrice.model_validate({k: s[k] for k in SkillPrice.model_fields if k in s})
            for s in skills]


async def serve_stdio(api_url: str, api_key: str) -> None:
    async with httpx.AsyncClient(base_url=api_url.rstrip("/"), timeout=120) as http:
        pricing = await http.get("/api/v1/pricing")
        pricing.raise_for_status()
        openapi = await http.get("/api/v1/openapi.json")
        openapi.raise_for_status()
        tools = build_tools(skills_of(pricing.json()), openapi.json())
        dispatcher = Dispatcher(http)

        async def tool_list() -> list[ToolSpec]:
            return tools

        def caller(ctx: Any) -> tuple[Dispatcher, str | None]:
            return dispatcher, api_key

        server = make_server(tool_list, caller)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
