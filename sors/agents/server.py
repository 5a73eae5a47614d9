"""The MCP server: the tool list and the tool calls, over any transport.

`tools` answers the current tool list (derived from the price list); `caller` gives, for
one MCP request, the dispatcher and the API key to call the endpoint with.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from sors import __version__
from sors.agents.catalog import ToolSpec
from sors.agents.dispatch import Dispatcher, unknown_tool

INSTRUCTIONS = """sors finds TikTok, Instagram and YouTube posts that overperform their own
creator's baseline (the outlier score), explains them and helps make the next one. Each tool
is one priced skill of the API; its description says what it costs. Billable tools accept
dryRun=true for a free quote. Every result's _meta carries creditsCharged and balance."""

ToolSource = Callable[[], Awaitable[list[ToolSpec]]]
Caller = Callable[[Any], tuple[Dispatcher, str | None]]


def to_mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            # Platform data comes from the outside world, but every call stays inside sors.
            open_world_hint=False,
        ),
        _meta={"sors/credits": spec.credits, "sors/method": spec.method, "sors/path": spec.path},
    )


def make_server(tools: ToolSource, caller: Caller) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[to_mcp_tool(t) for t in await tools()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = next((t for t in await tools() if t.name == params.name), None)
        if spec is None:
            return unknown_tool(params.name)
        dispatcher, api_key = caller(ctx)
        return await dispatcher.call(spec, params.arguments, api_key)

    return Server(
        "sors", version=__version__, title="sors — Social Outlier Research Service",
        instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
    )
