"""Checks a real response body against its route's response model: every required field
present (response models give a default only to keys that may be absent, such as a post's
`transcript`), no field the model lacks, every value of the declared type, nested too."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter


def route_model(app, method: str, path: str) -> Any:
    from sors.kit.openapi import api_routes

    for p, methods, route in api_routes(app):
        if p == path and method in methods:
            return route.response_model
    raise LookupError(f"{method} {path}")


def assert_body_matches(app, method: str, path: str, body: Any) -> None:
    # Strict: extra fields, missing ones and wrong types (a string for a number) raise here.
    TypeAdapter(route_model(app, method, path)).validate_python(body, strict=True)
