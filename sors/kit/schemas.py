"""Base classes for request and response models.

`RequestModel`: wrong types refused (strict), unknown fields refused with 422 `unknown_field`
naming the field and, when a known one is close, suggesting it (`page_size` → `pageSize`):
a typo must never turn into a paid, unfiltered search.

`ResponseModel`: the exact fields a route answers with. Services build it and routes return
it, so FastAPI validates every body against it (hot paths build theirs with
`model_construct` and answer `kit.responses.ModelResponse`); it is also what the OpenAPI
document, the docs page, generated clients and the MCP tools' output schemas read, and
tests/api checks every route's real body against it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Annotated, Any, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict, JsonValue
from pydantic_core import PydanticCustomError

UNKNOWN_FIELD = "unknown_field"


def suggest(name: str, known: list[str]) -> str | None:
    """The known name closest to `name`, if one is close enough to be a likely typo."""
    if not known:
        return None
    folded = {k.replace("_", "").lower(): k for k in known}
    key = name.replace("_", "").replace("-", "").lower()
    if key in folded:  # page_size → pageSize, PAGESIZE → pageSize
        return folded[key]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_field_message(name: str, known: list[str]) -> str:
    hint = suggest(name, known)
    msg = f"unknown field {name!r}"
    return msg + (f"; did you mean {hint!r}?" if hint else f"; known fields: {', '.join(known)}")


def _int_fields(model: type[BaseModel]) -> frozenset[str]:
    out = set()
    for name, f in model.model_fields.items():
        if f.annotation is int or (
            int in get_args(f.annotation) and not {float, str} & set(get_args(f.annotation))
        ):
            out.add(f.alias or name)
    return frozenset(out)


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = [f.alias or n for n, f in cls.model_fields.items()]
            allowed = set(known) | set(cls.model_fields)
            for name in data:
                if name not in allowed:
                    raise PydanticCustomError(
                        UNKNOWN_FIELD,
                        "{message}",
                        {"message": unknown_field_message(str(name), known), "field": str(name)},
                    )
            # JSON Schema's `integer` includes 20.0; strict mode alone would refuse it. A
            # fraction or a string still is refused.
            ints = _int_fields(cls)
            fixed = {
                k: int(v) for k, v in data.items()
                if k in ints and isinstance(v, float) and v.is_integer() and abs(v) < 2**63
            }
            if fixed:
                data = {**data, **fixed}
            # PostgreSQL text cannot hold NUL characters; they carry no meaning in any field.
            nul = {k: _without_nul(v) for k, v in data.items() if _has_nul(v)}
            if nul:
                data = {**data, **nul}
        return data


def _has_nul(v: object) -> bool:
    return (isinstance(v, str) and "\x00" in v) or (
        isinstance(v, list) and any(isinstance(i, str) and "\x00" in i for i in v))


def _without_nul(v: object) -> object:
    """A string, or a list's strings, without NUL characters."""
    if isinstance(v, list):
        return [i.replace("\x00", "") if isinstance(i, str) else i for i in v]
    return v.replace("\x00", "") if isinstance(v, str) else v


class ResponseModel(BaseModel):
    # extra="forbid" puts `additionalProperties: false` into the document: it lists every
    # field a body has, no more (tests/api/test_bodies_match_models.py holds routes to it).
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def trimmed_length(lo: int, hi: int) -> str:
    """A JSON Schema pattern: lo-hi characters once surrounding whitespace is trimmed
    (what str.strip() leaves), so the document states the rule the validator applies."""
    if lo == 0:
        return rf"^\s*(?:\S(?:[\s\S]{{0,{hi - 2}}}\S)?)?\s*$"
    if lo == 1:
        return rf"^\s*\S(?:[\s\S]{{0,{hi - 2}}}\S)?\s*$"
    return rf"^\s*\S(?:[\s\S]{{{lo - 2},{hi - 2}}}\S)\s*$"


# The characters str.strip() removes (str.isspace), spelled out: JSON Schema's `\s` is
# ECMAScript's, which differs (it has U+FEFF, it lacks U+001C-U+001F and U+0085).
STRIPPED = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = f"[^{STRIPPED}]"  # a pattern: something str.strip() leaves


def _given(fields: Sequence[str], blank_is_absent: bool) -> JsonDict:
    text: JsonDict = {"type": "string"}
    if blank_is_absent:
        text["pattern"] = NOT_BLANK
    required: list[JsonValue] = [*fields]
    return {"required": required, "properties": {f: text for f in fields}}


def one_of_sets(*sets: Sequence[str], blank_is_absent: bool = False) -> JsonDict:
    """JSON Schema for "name it by one of these sets of fields": at least one set is given
    with string values (null counts as absent; with `blank_is_absent`, a blank one too).
    Said as `if` none of the first sets `then` the last (the same as an anyOf of the sets):
    client generators turn a top-level anyOf into an untyped body."""
    *first, last = sets
    alternatives: list[JsonValue] = [_given(s, blank_is_absent) for s in first]
    return {"if": {"not": {"anyOf": alternatives}}, "then": _given(last, blank_is_absent)}


def together(a: str, b: str) -> list[JsonDict]:
    """JSON Schema: `a` and `b` are given (non-null) together or not at all."""
    return [{"if": _given([x], False), "then": _given([y], False)} for x, y in ((a, b), (b, a))]


# ISO 8601 in UTC ending in Z (sors.kit.clock.isoformat).
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
