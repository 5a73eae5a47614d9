"""Every /api/v1 route declares itself in the OpenAPI document: a response model, its error
statuses as problem details (401 unless key-less, 422 always), a stable operation id, a tag,
a summary and a description. Routes added later must comply (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from collections import Counter

from sors.api.openapi import requires_key
from sors.kit.openapi import api_routes

PROBLEM = "application/problem+json"


def _api_operations(app) -> list[tuple[str, str, dict, object]]:
    doc = app.openapi()
    out = []
    for path, methods, route in api_routes(app):
        if not path.startswith("/api/v1/") or not route.include_in_schema:
            continue
        for method in methods:
            out.append((path, method, doc["paths"][path][method.lower()], route))
    return out


def test_every_api_route_declares_itself(app) -> None:
    problems = []
    for path, method, op, route in _api_operations(app):
        where = f"{method} {path}"
        if route.response_model is None:
            problems.append(f"{where}: no response_model")
        ok = op["responses"].get("200") or op["responses"].get("201") or {}
        schema = (ok.get("content") or {}).get("application/json", {}).get("schema", {})
        if not schema or schema == {"type": "string"}:
            problems.append(f"{where}: 2xx body is not described")
        wanted = ["422"] + (["401"] if requires_key(route) else [])
        for status in wanted:
            content = op["responses"].get(status, {}).get("content", {})
            if PROBLEM not in content:
                problems.append(f"{where}: {status} not declared as {PROBLEM}")
        if "requestBody" in op and "400" not in op["responses"]:
            problems.append(f"{where}: reads a body but does not declare 400")
        for key in ("operationId", "summary", "description", "tags"):
            if not op.get(key):
                problems.append(f"{where}: no {key}")
    assert not problems, "\n".join(problems)


def test_operation_ids_are_unique_skill_keys(app) -> None:
    from sors.billing.pricing import get_pricing

    doc = app.openapi()
    ids = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
    assert not [i for i, n in Counter(ids).items() if n > 1]
    skills = set(get_pricing().skills)
    api_ids = {op["operationId"] for _, _, op, _ in _api_operations(app)}
    # Every priced skill is an operation under its own key.
    assert skills <= api_ids, skills - api_ids


def test_document_shape(app) -> None:
    doc = app.openapi()
    assert doc["info"]["version"] == "1.0.0"
    schemes = doc["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert schemes["apiKeyHeader"]["in"] == "header"
    assert schemes["apiKeyHeader"]["name"] == "x-api-key"
    assert "HTTPValidationError" not in doc["components"].get("schemas", {})
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                if status[0] in "45":
                    assert "application/json" not in response.get("content", {}), (method, path)
    keyless = {
        p for p, _, r in api_routes(app)
        if p.startswith("/api/v1/") and r.include_in_schema and not requires_key(r)
    }
    assert keyless == {"/api/v1/pricing", "/api/v1/trending", "/api/v1/shared/boards/{token}"}
