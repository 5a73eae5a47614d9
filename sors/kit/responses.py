"""JSON responses: plain content rendered with orjson (UTC datetimes end in Z, as the contract
wants), response models with pydantic-core's serializer."""

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
    """A response model rendered by pydantic-core's JSON serializer in one step (no dict in
    between): for hot paths that build their model with `model_construct`. With
    `exclude_unset`, a field the builder did not set is left out of the body (the contract's
    keys that are present only sometimes)."""

    def __init__(
        self,
        content: BaseModel,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        *,
        exclude_unset: bool = False,
    ) -> None:
        self.exclude_unset = exclude_unset
        super().__init__(content, status_code=status_code, headers=headers)

    def render(self, content: Any) -> bytes:
        model: BaseModel = content
        return model.__pydantic_serializer__.to_json(model, exclude_unset=self.exclude_unset)
