"""A tool call is an HTTP call to the skill's own endpoint, with the caller's key.

Inside the app the HTTP client's transport is the app itself (an in-process ASGI call), so a
tool call passes through exactly what an HTTP call passes through: key check, rate limit,
validation, the endpoint, the charge in its transaction, refunds, credit headers. There is
no second implementation of any skill and no second path for money. `sors mcp` uses the
same code with a real HTTP client pointed at a sors API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict
from urllib.parse import quote

import httpx
import mcp_types as types
import orjson

from sors.agents.catalog import ToolSpec


class NextCall(TypedDict):
    name: str
    arguments: dict[str, object]


class CallMeta(TypedDict):
    """A tool result's `_meta`: what the call charged and how it went."""

    creditsCharged: int
    balance: int | None
    requestId: str | None
    httpStatus: int
    code: NotRequired[str]  # a failure's problem code
    nextCall: NotRequired[NextCall]  # how to get the next page


def _meta(status: int, *, charged: int = 0, balance: int | None = None,
          request_id: str | None = None) -> CallMeta:
    return CallMeta(creditsCharged=charged, balance=balance, requestId=request_id,
                    httpStatus=status)


class Dispatcher:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def call(self, tool: ToolSpec, arguments: Mapping[str, object] | None,
                   api_key: str | None) -> types.CallToolResult:
        args = dict(arguments or {})
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        dry_run = args.pop("dryRun", False)
        if dry_run is True:
            headers["X-Dry-Run"] = "true"
        elif dry_run is not False:
            args["dryRun"] = dry_run  # not a boolean: let the endpoint refuse it by name
        path = tool.path
        for name in tool.path_params:
            value = args.pop(name, None)
            if value is None or value == "":
                return _local_error(tool, f"{name} is required.", name)
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        query = {n: _query_value(args.pop(n)) for n in tool.query_params if n in args}
        content: bytes | None = None
        if tool.has_body and (args or tool.body_required):
            content = orjson.dumps(args)
            headers["Content-Type"] = "application/json"
        elif not tool.has_body:
            # Anything left is an unknown argument: send it on so the endpoint refuses it
            # exactly as it refuses an unknown query field.
            query.update({k: _query_value(v) for k, v in args.items()})
        try:
            response = await self.http.request(tool.method, path, params=query,
                                               content=content, headers=headers)
        except httpx.HTTPError as exc:  # only over a real network (`sors mcp`)
            return _unreachable(str(exc) or type(exc).__name__)
        return to_result(tool, arguments or {}, response)


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)


def _int_header(response: httpx.Response, name: str) -> int | None:
    value = response.headers.get(name)
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


# The API's answers are read as sent (JSON) and passed on to the agent as the tool's
# structured content: `Mapping[str, object]` below is one of them.
def to_result(tool: ToolSpec, arguments: Mapping[str, object],
              response: httpx.Response) -> types.CallToolResult:
    meta = _meta(response.status_code, charged=_int_header(response, "x-credits-charged") or 0,
                 balance=_int_header(response, "x-credits-balance"),
                 request_id=response.headers.get("x-request-id"))
    try:
        body = response.json()
    except ValueError:
        body = {"detail": response.text[:500]}
    if response.status_code >= 400:
        return _error_result(body if isinstance(body, dict) else {"detail": str(body)},
                             response.status_code, meta)
    text = orjson.dumps(body).decode()
    if not isinstance(body, dict):
        body = {"results": body}  # structured content is an object; a bare list is wrapped
    blocks = [types.TextContent(text=text)]
    following = next_call(tool, arguments, body)
    if following is not None:
        meta["nextCall"] = following
        arguments = orjson.dumps(following["arguments"]).decode()
        blocks.append(types.TextContent(text=f"More results: call {tool.name} with {arguments}"))
    return types.CallToolResult(content=blocks, structured_content=body, _meta=dict(meta))


def next_call(tool: ToolSpec, arguments: Mapping[str, object],
              body: Mapping[str, object]) -> NextCall | None:
    """How to get the next page, when there is one."""
    if body.get("hasMore") is not True:
        return None
    following = {k: v for k, v in arguments.items() if k != "dryRun"}
    if tool.paged_by == "page":
        current = body.get("page") or following.get("page") or 1
        following["page"] = (int(current) if isinstance(current, int | float | str) else 1) + 1
    elif tool.paged_by == "before" and body.get("nextBefore"):
        following["before"] = body["nextBefore"]
    return NextCall(name=tool.name, arguments=following)


def _error_result(problem: Mapping[str, object], status: int,
                  meta: CallMeta) -> types.CallToolResult:
    code = str(problem.get("code") or f"http_{status}")
    detail = problem.get("detail") or problem.get("title") or "The call failed."
    meta["code"] = code
    lines = [f"Error {status} {code}: {detail}"]
    if code == "insufficient_credits":
        lines.append(f"Required {problem.get('required')} credits, balance "
                     f"{problem.get('balance')}. Top up with create_topup_link.")
    if code == "spend_cap_reached":
        lines.append(f"This key's daily cap is {problem.get('cap')} credits and "
                     f"{problem.get('spentToday')} were spent today (UTC).")
    errors = problem.get("errors")
    if isinstance(errors, list) and errors:
        lines.append("Fields: " + "; ".join(
            f"{_member(e, 'field')}: {_member(e, 'message')}" for e in errors))
    blocks = [types.TextContent(text="\n".join(lines)),
              types.TextContent(text=orjson.dumps(problem).decode())]
    return types.CallToolResult(content=blocks, structured_content=problem, is_error=True,
                                _meta=dict(meta))


def _member(item: object, key: str) -> object:
    return item.get(key) if isinstance(item, dict) else None


def _local_error(tool: ToolSpec, detail: str, field: str) -> types.CallToolResult:
    # A missing path argument cannot even form the URL; the same 422 shape the API uses.
    problem = {"type": "/errors/validation_error", "title": "Validation error", "status": 422,
               "detail": f"{field}: {detail}", "code": "validation_error",
               "errors": [{"field": field, "message": detail}]}
    return _error_result(problem, 422, _meta(422))


def _unreachable(why: str) -> types.CallToolResult:
    problem = {"type": "/errors/unavailable", "title": "Service unavailable", "status": 503,
               "detail": f"The sors API could not be reached ({why}); retry shortly.",
               "code": "unavailable"}
    return _error_result(problem, 503, _meta(503))


def unknown_tool(name: str) -> types.CallToolResult:
    problem = {"type": "/errors/not_found", "title": "Not found", "status": 404,
               "detail": f"No tool named {name!r}; list_tools names every skill.",
               "code": "unknown_tool"}
    return _error_result(problem, 404, _meta(404))
