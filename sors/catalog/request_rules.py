"""Request rules across fields, stated as JSON Schema for the API document (the validators
in catalog.schemas and the services apply them; tests/api/test_schema_rules.py holds the two
together)."""

from __future__ import annotations

from typing import Any


def page_rule(window: int, max_size: int, default_size: int) -> dict[str, Any]:
    """JSON Schema for "only the first `window` matches can be paged through": the largest
    `page` for each effective page size (`pageSize` clamped to 1-`max_size`, `default_size`
    when absent), as one if/then per size."""
    def last_page(size: int) -> int:
        return -(-window // size)  # page n starts at (n - 1) × size, below the window

    rules: list[dict[str, Any]] = []
    for size in range(1, max_size + 1):
        bounds: dict[str, Any] = {"type": "integer"}
        if size > 1:
            bounds["minimum"] = size
        if size < max_size:
            bounds["maximum"] = size
        rules.append({"if": {"required": ["pageSize"], "properties": {"pageSize": bounds}},
                      "then": {"properties": {"page": {"maximum": last_page(size)}}}})
    rules.append({
        "if": {"not": {"required": ["pageSize"], "properties": {"pageSize": {"type": "integer"}}}},
        "then": {"properties": {"page": {"maximum": last_page(default_size)}}},
    })
    return {"allOf": rules}


def _entries(field: str, lo: int, hi: int) -> dict[str, Any]:
    """JSON Schema: `field` holds lo-hi entries (absent or null count as none)."""
    many = {"required": [field], "properties": {field: {
        "type": "array", "minItems": lo, "maxItems": hi}}}
    if lo > 0:
        return many
    return {"anyOf": [{"not": {"required": [field]}},
                      {"properties": {field: {"type": "null"}}}, many]}


# profileIds and handles together hold 2-5 entries; handles as a JSON string is counted once
# decoded (its description says so). `then: false` refuses what no branch admits (if/then,
# as the other rules: client generators turn a top-level anyOf into an untyped body).
COMPARE_RULE = {
    "if": {"not": {"anyOf": [
        *({"allOf": [_entries("profileIds", i, i), _entries("handles", max(0, 2 - i), 5 - i)]}
          for i in range(6)),
        {"required": ["handles"], "properties": {"handles": {"type": "string"}}},
    ]}},
    "then": False,
}
