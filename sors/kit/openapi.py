"""The OpenAPI document and the docs page.

- Operation ids are the skill keys (`x-sors-skill`), else an explicit `operation_id`; never
  FastAPI's generated `name_path_method` ids, so clients and agent tools keep stable names.
- Error responses are `application/problem+json` (FastAPI files every declared response under
  the route's media type; this moves the 4xx/5xx ones).
- Security: Bearer and `x-api-key` schemes on every operation that needs a key (which ones
  the caller says: `sors.api.openapi.requires_key`).
- The document is built once and served as cached bytes with an ETag, outside the rate limit.
- The docs page loads Swagger UI from the `swagger-ui-py` package's files, served by the app:
  no CDN, so it works offline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles

OPENAPI_URL = "/api/v1/openapi.json"
DOCS_URL = "/docs"
ASSETS_URL = "/docs/assets"
API_VERSION = "1.0.0"  # the seed's interface; the package version is separate
SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "`Authorization: Bearer sors_…`",
    },
    "apiKeyHeader": {
        "type": "apiKey",
        "in": "header",
        "name": "x-api-key",
        "description": "`x-api-key: sors_…`",
    },
}
KEYED: list[dict[str, list[str]]] = [{"bearerAuth": []}, {"apiKeyHeader": []}]
_UNUSED = ("HTTPValidationError", "ValidationError")
KeyedRoute = Callable[[APIRoute], bool]


def operation_id(route: APIRoute) -> str:
    """`generate_unique_id_function` of the app: the skill key, else the route's name."""
    extra = route.openapi_extra or {}
    return str(extra.get("x-sors-skill") or route.name)


def api_routes(app: FastAPI) -> list[tuple[str, set[str], APIRoute]]:
    """(path, methods, route) of every FastAPI route, included routers flattened."""
    out = []
    for rc in iter_route_contexts(app.routes):
        route = rc.original_route
        if isinstance(route, APIRoute):
            out.append((str(rc.path_format), set(rc.methods or ()), route))
    return out


def _walk(dependant: Dependant) -> list[Dependant]:
    out, todo = [], [dependant]
    while todo:
        d = todo.pop()
        out.append(d)
        todo.extend(d.dependencies)
    return out


def depends_on(route: APIRoute, calls: set[Callable[..., Any]]) -> bool:
    """Whether the route, or any dependency of it, depends on one of `calls`."""
    return bool({d.call for d in _walk(route.dependant)} & calls)


def query_names(route: APIRoute) -> frozenset[str]:
    """Every query parameter the route declares (by its public alias)."""
    return frozenset(p.alias for d in _walk(route.dependant) for p in d.query_params)


def build(app: FastAPI, requires_key: KeyedRoute) -> dict[str, Any]:
    doc = get_openapi(
        title=app.title,
        version=API_VERSION,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
        servers=app.servers,
    )
    routes = {(path, m.lower()): r for path, methods, r in api_routes(app) for m in methods}
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            route = routes.get((path, method))
            if route is None or not isinstance(op, dict):
                continue
            if requires_key(route):
                op["security"] = KEYED
            for status, response in op.get("responses", {}).items():
                content = response.get("content") or {}
                if status[:1] in "45" and "application/json" in content:
                    content["application/problem+json"] = content.pop("application/json")
    components = doc.setdefault("components", {})
    components["securitySchemes"] = SECURITY_SCHEMES
    schemas = components.get("schemas", {})
    for name in _UNUSED:  # FastAPI's default 422 shape, which sors never sends
        schemas.pop(name, None)
    return doc


class CachedDocument:
    def __init__(self, app: FastAPI, requires_key: KeyedRoute) -> None:
        self.app = app
        self.requires_key = requires_key
        self._body: bytes | None = None
        self._etag = ""

    def schema(self) -> dict[str, Any]:
        if self.app.openapi_schema is None:
            self.app.openapi_schema = build(self.app, self.requires_key)
        return self.app.openapi_schema

    def body(self) -> tuple[bytes, str]:
        if self._body is None:
            from sors.kit.responses import dumps

            self._body = dumps(self.schema())
            self._etag = '"' + hashlib.sha256(self._body).hexdigest()[:32] + '"'
        return self._body, self._etag


def _assets_dir() -> Path:
    import swagger_ui

    return Path(swagger_ui.__file__).parent / "static"


def install(app: FastAPI, requires_key: KeyedRoute) -> None:
    """Serve the document and the docs page; `requires_key` tells which operations need a
    key (the doors know how a route authenticates)."""
    cached = CachedDocument(app, requires_key)
    app.openapi = cached.schema  # type: ignore[method-assign]

    @app.get(OPENAPI_URL, include_in_schema=False)
    async def openapi_document(request: Request) -> Response:
        body, etag = cached.body()
        headers = {"ETag": etag, "Cache-Control": "public, max-age=300"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    @app.get(DOCS_URL, include_in_schema=False)
    async def docs_page() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=OPENAPI_URL,
            title=f"{app.title} — API docs",
            swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_URL}/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": True, "displayOperationId": True},
        )

    app.mount(ASSETS_URL, StaticFiles(directory=_assets_dir()), name="docs-assets")
