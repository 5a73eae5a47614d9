"""JSON responses: plain content rendered with orjson (UTC datetimes end in Z, as the contract
wants), response models with pydantic-core's serializer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

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


M = TypeVar("M", bound=BaseModel)


def assemble(model: type[M], fields: dict[str, object]) -> M:
    """`model(**fields)` for the hot reads, trusted as they are: no validation and no
    defaults, as `model_construct`, but without its pass over the model's fields (~30 µs for
    a record's: a page of records is hundreds of models, and that pass cost more than the
    read). A field left out is left out of the body; pydantic-core writes the fields in the
    order `fields` lists them."""
    out = _new(model)
    _setattr(out, "__dict__", fields)
    _set_fields_set(out, set(fields))
    _set_extra(out, None)
    _set_private(out, None)
    return out


_new = object.__new__
_setattr = object.__setattr__
# BaseModel's slots, set through their descriptors (what object.__setattr__ would look up).
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class ModelResponse(JSONResponse):
    """A response model rendered by pydantic-core's JSON serializer in one step (no dict in
    between): for the hot reads, whose models are built with `assemble` or
    `model_construct`. With `exclude_unset`, a field the builder did not set is left out."""

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
        # warnings off: bodies may carry another domain's records as plain mappings in a
        # model's place (monitoring's updates, a board's items), written as they are.
        return model.__pydantic_serializer__.to_json(
            model, exclude_unset=self.exclude_unset, warnings=False)
