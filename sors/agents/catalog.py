"""The MCP tool list, derived from two documents the HTTP API already publishes: the price
list (GET /api/v1/pricing: which skills exist, what each costs) and the OpenAPI document
(GET /api/v1/openapi.json: each route's parameters, request body and response model).

One tool per skill, named by its key. So a skill added to pricing.toml is a tool without
any edit here, a price change shows in the tool's description at once, and the tool's input
and output schemas are the HTTP endpoint's own request and response models.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from sors.agents.document import REF, Document, Operation
from sors.agents.guides import guide_for

# What a dry-run quote looks like (X-Dry-Run: true over HTTP, `dryRun` over MCP).
QUOTE_SCHEMA: dict[str, object] = {
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


class PricedSkill(Protocol):
    """A skill of the price list: the loaded one (`sors.billing.pricing.Skill`) or one read
    from GET /api/v1/pricing (`sors.billing.schemas.SkillPrice`)."""

    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def credits(self) -> int: ...


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
    # JSON Schemas, self-contained (see `_bundle`), as MCP lists them.
    input_schema: dict[str, object]
    output_schema: dict[str, object]
    read_only: bool
    destructive: bool
    idempotent: bool
    paged_by: str | None = None  # the argument that selects the next page, if any

    @property
    def billable(self) -> bool:
        return self.credits > 0


def build_tools(skills: Iterable[PricedSkill], openapi: Mapping[str, object]) -> list[ToolSpec]:
    """One ToolSpec per skill of the price list, in the price list's order. `openapi`: the
    document as published (JSON)."""
    doc = Document.model_validate(openapi)
    tools = []
    for skill in skills:
        op = doc.operation(skill.path, skill.method)
        if op is None:
            raise LookupError(f"skill {skill.key} names {skill.method} {skill.path}, "
                              "which the OpenAPI document does not have")
        tools.append(_tool(skill, op, doc))
    return tools


def _tool(skill: PricedSkill, op: Operation, doc: Document) -> ToolSpec:
    key, method, credits = skill.key, skill.method.upper(), int(skill.credits)
    props: dict[str, object] = {}
    required: list[str] = []
    path_params: list[str] = []
    query_params: list[str] = []
    for p in op.parameters:
        if p.where not in ("path", "query"):
            continue
        schema = dict(p.schema_)
        if p.description:
            schema.setdefault("description", p.description)
        props[p.name] = schema
        (path_params if p.where == "path" else query_params).append(p.name)
        if p.required:
            required.append(p.name)
    body = _body_schema(op, doc)
    body_required = op.request_body is not None and op.request_body.required
    if body is not None:
        for name, field in _mapping(body.get("properties")).items():
            props.setdefault(name, field)
        if body_required:
            required += [r for r in _strings(body.get("required")) if r not in required]
    guide = guide_for(key, method)
    if credits > 0:
        props["dryRun"] = {
            "type": "boolean", "default": False,
            "description": "Quote only: validate the input and return what this call would "
                           "cost, changing nothing (no charge, no job, no write).",
        }
    arguments: dict[str, object] = {"type": "object", "properties": props,
                                    "additionalProperties": False}
    if required:
        arguments["required"] = required
    paged_by = "page" if "page" in props else ("before" if "before" in props else None)
    return ToolSpec(
        name=key,
        title=skill.title or key,
        description=guide.describe(credits, dry_run=credits > 0, paged_by=paged_by),
        method=method,
        path=skill.path,
        credits=credits,
        path_params=tuple(path_params),
        query_params=tuple(query_params),
        has_body=body is not None,
        body_required=body_required,
        input_schema=_bundle(arguments, doc),
        output_schema=_bundle(_output_schema(op, credits > 0), doc),
        read_only=guide.read_only,
        destructive=guide.destructive,
        idempotent=guide.idempotent,
        paged_by=paged_by,
    )


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _body_schema(op: Operation, doc: Document) -> dict[str, object] | None:
    schema = op.json_body()
    if schema is None:
        return None
    # An optional body is `anyOf: [model, null]`; its arguments are the model's fields.
    options = schema.get("anyOf", [schema])
    for option in options if isinstance(options, list) else [schema]:
        resolved = doc.deref(_mapping(option))
        if resolved.get("type") == "object" or "properties" in resolved:
            return resolved
    return {"type": "object", "properties": {}}


def _output_schema(op: Operation, quotes: bool) -> dict[str, object]:
    schema = op.success()
    route: dict[str, object]
    if schema and schema.get("type") == "array":
        # A bare JSON list comes back wrapped as {"results": [...]} (see dispatch.to_result).
        route = {"type": "object", "properties": {"results": schema}, "required": ["results"]}
    else:
        route = schema if schema and _is_object(schema) else {"type": "object"}
    if not quotes:
        return route if route.get("type") == "object" else {"type": "object", "allOf": [route]}
    # A billable tool answers either the route's own body or, with dryRun, a quote.
    return {"type": "object", "anyOf": [route, QUOTE_SCHEMA]}


def _is_object(schema: dict[str, object]) -> bool:
    return schema.get("type") == "object" or "$ref" in schema or "properties" in schema


def _bundle(schema: dict[str, object], doc: Document) -> dict[str, object]:
    """Make a schema self-contained: OpenAPI `#/components/schemas/X` references become
    `#/$defs/X`, and every component reached is copied under `$defs`."""
    out = copy.deepcopy(schema)
    components = doc.components.schemas
    defs: dict[str, object] = {}
    pending = _rewrite(out)
    while pending:
        name = pending.pop()
        if name in defs or name not in components:
            continue
        defs[name] = copy.deepcopy(components[name])
        pending |= _rewrite(defs[name])
    if defs:
        out["$defs"] = defs
    return out


def _rewrite(node: object) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            name = ref[len(REF):]
            node["$ref"] = "#/$defs/" + name
            found.add(name)
        for value in node.values():
            found |= _rewrite(value)
    elif isinstance(node, list):
        for value in node:
            found |= _rewrite(value)
    return found
