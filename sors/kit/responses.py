"""JSON responses rendered with orjson (UTC datetimes end in Z, as the contract wants), and
`ModelResponse` for a response model rendered as it was built."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel
from starlette.responses import JSONResponse as StarletteJSONResponse

_OPTS = orjson.OPT_UTC_Z | orjson.OPT_NAIVE_UTC | orjson.OPT_NON_STR_KEYS


def dumps(content: Any) -> bytes:
    return orjson.dumps(content, option=_OPTS)


class JSONResponse(StarletteJSONResponse):
    # A JSONResponse subclass, so FastAPI documents the route's response_model as its body.
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


class ProblemResponse(JSONResponse):
    media_type = "application/problem+json"


class ModelResponse(JSONResponse):
    """A response model rendered by pydantic-core's JSON serializer as it was built, with no
    second validation: for hot paths that build with `Model.model_construct(...)`, and for
    bodies that carry another domain's records as that domain made them (plain mappings in
    the model's place, which the serializer writes as they are)."""

    def __init__(self, model: BaseModel, status_code: int = 200,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(model, status_code=status_code, headers=headers)

    def render(self, content: Any) -> bytes:
        model: BaseModel = content
        return model.__pydantic_serializer__.to_json(model, warnings=False)
