"""JSON responses rendered with orjson (UTC datetimes end in Z, as the contract wants)."""

from __future__ import annotations

from typing import Any

import orjson
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
