"""Request rules across fields, stated as JSON Schema for the API document (the validators
in catalog.schemas and the services apply them; tests/api/test_schema_rules.py holds the two
together)."""

from __future__ import annotations

from pydantic.json_schema import JsonDict, JsonValue


def _entries(field: str, lo: int, hi: int) -> JsonDict:
    """JSON Schema: `field` holds lo-hi entries (absent or null count as none)."""
    many: JsonDict = {"required": [field], "properties": {field: {
        "type": "array", "minItems": lo, "maxItems": hi}}}
    if lo > 0:
        return many
    return {"anyOf": [{"not": {"required": [field]}},
                      {"properties": {field: {"type": "null"}}}, many]}


# profileIds and handles together hold 2-5 entries; handles as a JSON string is counted once
# decoded (its description says so). `then: false` refuses what no branch admits (if/then,
# as the other rules: client generators turn a top-level anyOf into an untyped body).
_COUNTS: list[JsonValue] = [
    {"allOf": [_entries("profileIds", i, i), _entries("handles", max(0, 2 - i), 5 - i)]}
    for i in range(6)
]
COMPARE_RULE: JsonDict = {
    "if": {"not": {"anyOf": [
        *_COUNTS,
        {"required": ["handles"], "properties": {"handles": {"type": "string"}}},
    ]}},
    "then": False,
}
