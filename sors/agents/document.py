"""The parts of an OpenAPI document the tool list reads (`sors.agents.catalog`), parsed from
the document as published — by the app itself, or over HTTP from another sors API (`sors
mcp`). What it does not read is ignored; JSON Schemas stay JSON (`dict[str, object]`), since
they are handed on to agents as they are."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

REF = "#/components/schemas/"


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class Parameter(_Part):
    name: str
    where: Literal["path", "query", "header", "cookie"] = Field(alias="in")
    required: bool = False
    description: str | None = None
    schema_: dict[str, object] = Field(default_factory=dict, alias="schema")


class MediaType(_Part):
    schema_: dict[str, object] | None = Field(default=None, alias="schema")


class RequestBody(_Part):
    required: bool = False
    content: dict[str, MediaType] = Field(default_factory=dict)


class Reply(_Part):
    content: dict[str, MediaType] = Field(default_factory=dict)


class Operation(_Part):
    parameters: list[Parameter] = Field(default_factory=list)
    request_body: RequestBody | None = Field(default=None, alias="requestBody")
    responses: dict[str, Reply] = Field(default_factory=dict)

    def json_body(self) -> dict[str, object] | None:
        body = self.request_body
        media = body.content.get("application/json") if body is not None else None
        return media.schema_ if media is not None else None

    def success(self) -> dict[str, object] | None:
        """The JSON Schema of its first 2xx answer (200, 201 or 202), if any."""
        reply = next((self.responses[s] for s in ("200", "201", "202") if s in self.responses),
                     None)
        media = reply.content.get("application/json") if reply is not None else None
        return media.schema_ if media is not None else None


class Components(_Part):
    schemas: dict[str, dict[str, object]] = Field(default_factory=dict)


class Document(_Part):
    paths: dict[str, dict[str, object]] = Field(default_factory=dict)
    components: Components = Field(default_factory=Components)

    def operation(self, path: str, method: str) -> Operation | None:
        found = self.paths.get(path, {}).get(method.lower())
        return Operation.model_validate(found) if found is not None else None

    def deref(self, schema: dict[str, object]) -> dict[str, object]:
        """The component a `$ref` names (an empty schema when the document lacks it), or the
        schema itself."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            return self.components.schemas.get(ref[len(REF):], {})
        return schema
