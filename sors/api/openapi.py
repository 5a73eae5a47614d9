"""The OpenAPI document's knowledge of keys: an operation needs a key when it depends on the
caller's principal (`sors.kit.principal`)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute

from sors.kit import openapi
from sors.kit.principal import current_account_id, current_principal

_KEYED = {current_account_id, current_principal}


def requires_key(route: APIRoute) -> bool:
    return openapi.depends_on(route, _KEYED)


def install(app: FastAPI) -> None:
    openapi.install(app, requires_key)
