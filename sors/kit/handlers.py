"""Exception handlers: every error leaves as RFC 9457 problem details with the request id
(and, on billable endpoints, the credit headers)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from sors.kit.errors import ApiError, MalformedRequest, NotFound, ValidationFailed
from sors.kit.responses import ProblemResponse
from sors.kit.routing import credit_headers

_BODY_SHAPE_ERRORS = {"json_invalid", "dict_type", "model_attributes_type", "model_type"}


def _problem(request: Request, exc: ApiError) -> ProblemResponse:
    headers = dict(exc.headers)
    bill = getattr(request.state, "bill", None)
    if bill is not None and bill.balance is not None:
        headers.update(credit_headers(bill))
    return ProblemResponse(
        exc.body(getattr(request.state, "request_id", None)),
        status_code=exc.status,
        headers=headers,
    )


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    return ".".join(parts)


def _required_body_fields(request: Request | None) -> list[str]:
    """The required fields of the route's JSON body model, for a request that sent none."""
    route = request.scope.get("route") if request is not None else None
    model = getattr(getattr(getattr(route, "body_field", None), "field_info", None), "annotation", None)
    fields = getattr(model, "model_fields", None) or {}
    return [f.alias or name for name, f in fields.items() if f.is_required()]


def translate_validation(exc: RequestValidationError, request: Request | None = None) -> ApiError:
    errors = exc.errors()
    for e in errors:
        loc = tuple(e.get("loc", ()))
        if e.get("type") == "json_invalid":
            return MalformedRequest("The request body is not valid JSON.")
        if e.get("type") in _BODY_SHAPE_ERRORS and loc in (("body",), ()):
            return MalformedRequest("The request body must be a JSON object.")
    out = []
    for e in errors:
        loc = tuple(e.get("loc", ()))
        if loc == ("body",) and e.get("type") == "missing":
            # No body at all: name what the body must hold rather than an empty field.
            missing = _required_body_fields(request)
            out += [{"field": f, "message": "Field required"} for f in missing] or [
                {"field": "body", "message": "A JSON object body is required."}
            ]
            continue
        msg = str(e.get("msg", "invalid"))
        msg = msg.removeprefix("Value error, ")
        out.append({"field": _field(loc), "message": msg})
    return ValidationFailed(out)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> ProblemResponse:
        return _problem(request, exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> ProblemResponse:
        return _problem(request, translate_validation(exc, request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> ProblemResponse:
        if exc.status_code == 404:
            err: ApiError = NotFound("No such endpoint.")
        else:
            err = ApiError(str(exc.detail))
            err.status = exc.status_code  # type: ignore[misc]
            err.code = {405: "method_not_allowed"}.get(exc.status_code, "http_error")  # type: ignore[misc]
            err.title = str(exc.detail)  # type: ignore[misc]
        return _problem(request, err)
