"""The MCP tool list, derived from two documents the HTTP API already publishes: the price
list (GET /api/v1/pricing: which skills exist, what each costs) and the OpenAPI document
(GET /api/v1/openapi.json: each route's parameters, request body and response model).

One tool per skill, named by its key. So a skill added to pricing.toml is a tool without
any edit here, a price change shows in the tool's description at once, and the tool's input
and output schemas are the HTTP endpoint's own request and response models.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sors.agents.guides import guide_for

_REF = "#/components/schemas/"

# What a dry-run quote looks like (X-Dry-Run: true over HTTP, `dryRun` over MCP).
QUOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "DryRunQuote",
    "properties": {
        "dryRun": {"const": True},
        "skill": {"type": "string"},
        "credits": {"type": "integer"},
        "balance": {"type": "integer"},
        "balanceAfter": {"type": "integer"},
        "queuesJob": {"type": "boolean"},
        "keyCapRemaining": {"type": ["integer", "null"]},
    },
    "required": ["dryRun", "skill", "credits", "balance", "balanceAfter", "queuesJob"],
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    method: str
    path: str
    credits: int
    path_params: tuple[str, ...]
    query_params: tuple[str, ...]
    has_body: bool
    body_required: bool
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    idempotent: bool
    paged_by: str | None = None  # the argument that selects the next page, if any
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def billable(self) -> bool:
        return self.credits > 0


def build_tools(price_list: dict[str, Any], openapi: dict[str, Any]) -> list[ToolSpec]:
    """One ToolSpec per skill of the price list, in the price list's order."""
    components = openapi.get("components", {}).get("schemas", {})
    tools = []
    for skill in price_list["skills"]:
        op = openapi.get("paths", {}).get(skill["path"], {}).get(skill["method"].lower())
        if op is None:
            raise LookupError(f"skill {skill['key']} names {skill['method']} {skill['path']}, "
                              "which the OpenAPI document does not have")
        tools.append(_tool(skill, op, components))
    return tools


def _tool(skill: dict[str, Any], op: dict[str, Any], components: dict[str, Any]) -> ToolSpec:
    key, method, credits = skill["key"], skill["method"].upper(), int(skill["credits"])
    props: dict[str, Any] = {}
    required: list[str] = []
    path_params, query_params = [], []
    for p in op.get("parameters", []):
        if p.get("in") not in ("path", "query"):
            continue
        schema = dict(p.get("schema", {}))
        if p.get("description"):
            schema.setdefault("description", p["description"])
        props[p["name"]] = schema
        (path_params if p["in"] == "path" else query_params).append(p["name"])
        if p.get("required"):
            required.append(p["name"])
    body = _body_schema(op, components)
    has_body = body is not None
    body_required = bool(op.get("requestBody", {}).get("required", False))
    if body is not None:
        for name, schema in body.get("properties", {}).items():
            props.setdefault(name, schema)
        if body_required:
            required += [r for r in body.get("required", []) if r not in required]
    guide = guide_for(key, method)
    if credits > 0:
        props["dryRun"] = {
            "type": "boolean", "default": False,
            "description": "Quote only: validate the input and return what this call would "
                           "cost, changing nothing (no charge, no job, no write).",
        }
    input_schema: dict[str, Any] = {"type": "object", "properties": props,
                                    "additionalProperties": False}
    if required:
        input_schema["required"] = required
    input_schema = _bundle(input_schema, components)
    output = _bundle(_output_schema(op, credits > 0), components)
    paged_by = "page" if "page" in props else ("before" if "before" in props else None)
    return ToolSpec(
        name=key,
        title=skill.get("title") or key,
        description=guide.describe(credits, dry_run=credits > 0, paged_by=paged_by),
        method=method,
        path=skill["path"],
        credits=credits,
        path_params=tuple(path_params),
        query_params=tuple(query_params),
        has_body=has_body,
        body_required=body_required,
        input_schema=input_schema,
        output_schema=output,
        read_only=guide.read_only,
        destructive=guide.destructive,
        idempotent=guide.idempotent,
        paged_by=paged_by,
    )


def _body_schema(op: dict[str, Any], components: dict[str, Any]) -> dict[str, Any] | None:
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    # An optional body is `anyOf: [model, null]`; its arguments are the model's fields.
    for option in schema.get("anyOf", [schema]):
        resolved = _deref(option, components)
        if resolved.get("type") == "object" or "properties" in resolved:
            return resolved
    return {"type": "object", "properties": {}}


def _output_schema(op: dict[str, Any], quotes: bool) -> dict[str, Any]:
    responses = op.get("responses", {})
    success = next((responses[s] for s in ("200", "201", "202") if s in responses), {})
    schema = success.get("content", {}).get("application/json", {}).get("schema")
    if schema and schema.get("type") == "array":
        # A bare JSON list comes back wrapped as {"results": [...]} (see dispatch.to_result).
        route = {"type": "object", "properties": {"results": schema}, "required": ["results"]}
    else:
        route = schema if schema and _is_object(schema) else {"type": "object"}
    if not quotes:
        return route if route.get("type") == "object" else {"type": "object", "allOf": [route]}
    # A billable tool answers either the route's own body or, with dryRun, a quote.
    return {"type": "object", "anyOf": [route, QUOTE_SCHEMA]}


def _is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or "$ref" in schema or "properties" in schema


def _deref(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref", "")
    if ref.startswith(_REF):
        return components.get(ref[len(_REF):], {})
    return schema


def _bundle(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """Make a schema self-contained: OpenAPI `#/components/schemas/X` references become
    `#/$defs/X`, and every component reached is copied under `$defs`."""
    schema = copy.deepcopy(schema)
    defs: dict[str, Any] = {}
    pending = _rewrite(schema)
    while pending:
        name = pending.pop()
        if name in defs or name not in components:
            continue
        defs[name] = copy.deepcopy(components[name])
        pending |= _rewrite(defs[name])
    if defs:
        schema["$defs"] = defs
    return schema


def _rewrite(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            name = ref[len(_REF):]
            node["$ref"] = "#/$defs/" + name
            found.add(name)
        for value in node.values():
            found |= _rewrite(value)
    elif isinstance(node, list):
        for value in node:
            found |= _rewrite(value)
    return found
