"""Exception handlers: every error leaves as RFC 9457 problem details with the request id
(and, on billable endpoints, the credit headers)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import iter_route_contexts
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from sors.kit.errors import ApiError, MalformedRequest, NotFound, UnknownField, ValidationFailed
from sors.kit.responses import ProblemResponse

_BODY_SHAPE_ERRORS = {"json_invalid", "dict_type", "model_attributes_type", "model_type"}


def _problem(request: Request, exc: ApiError) -> ProblemResponse:
    headers = dict(exc.headers)
    bill = getattr(request.state, "bill", None)  # a paid route's (sors.billing.deps.Bill)
    if bill is not None and bill.balance is not None:
        headers.update(bill.headers())
    return ProblemResponse(
        exc.body(getattr(request.state, "request_id", None)),
        status_code=exc.status,
        headers=headers,
    )


# Pydantic names the member of a union it tried inside `loc` (`list[HandleRef]`, `str`,
# `function-after[...]`); a client wants the field's path only.
_UNION_TAGS = {"str", "int", "float", "bool", "none", "list", "dict", "constrained-str"}


def _is_union_tag(part: str) -> bool:
    return part in _UNION_TAGS or "[" in part or "(" in part


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if not (isinstance(p, str) and _is_union_tag(p))]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    return ".".join(parts)


def _required_body_fields(request: Request | None) -> list[str]:
    """The required fields of the route's JSON body model, for a request that sent none."""
    route = request.scope.get("route") if request is not None else None
    field_info = getattr(getattr(route, "body_field", None), "field_info", None)
    model = getattr(field_info, "annotation", None)
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
    unknown = []
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
        if e.get("type") == "unknown_field":
            # Raised by RequestModel before validation, at the model's location.
            loc = (*loc, (e.get("ctx") or {}).get("field", ""))
            unknown.append({"field": _field(loc), "message": msg})
        elif e.get("type") == "extra_forbidden":  # a model not built on RequestModel
            unknown.append({"field": _field(loc), "message": f"unknown field {loc[-1]!r}"})
        else:
            out.append({"field": _field(loc), "message": msg})
    if unknown:
        # The other members of a union fail too ("not a string"): noise beside the typo.
        return UnknownField(unknown)
    return ValidationFailed(out)


def allowed_methods(request: Request) -> list[str]:
    """The methods of the path's resource, across every route declaring it (Starlette names
    only the first route). `/posts/media` also matches the template `/posts/{postId}`; the
    resource is the most literal template that matches, as the document lists it."""
    by_template: dict[str, set[str]] = {}
    for route in iter_route_contexts(request.app.router.routes):
        match, _ = route.matches({**request.scope, "method": "GET"})
        route_methods = getattr(route, "methods", None)
        if match != Match.NONE and route_methods:
            by_template.setdefault(str(route.path_format), set()).update(route_methods)
    if not by_template:
        return []
    best = min(by_template, key=lambda t: (t.count("{"), -len(t)))
    return sorted(by_template[best])


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
            err.status = exc.status_code
            err.code = {405: "method_not_allowed"}.get(exc.status_code, "http_error")
            err.title = str(exc.detail)
            err.headers.update(exc.headers or {})
            if exc.status_code == 405:
                allow = allowed_methods(request)
                err.headers["Allow"] = ", ".join(allow)
                err.detail = f"{request.method} is not allowed here; allowed: {', '.join(allow)}."
        return _problem(request, err)
