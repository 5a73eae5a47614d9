"""The OpenAPI document's knowledge of keys: an operation needs a key when it depends on the
caller's principal (`sors.accounts.deps`)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute

from sors.accounts.deps import current_account_id, current_principal
from sors.kit import openapi

_KEYED = {current_account_id, current_principal}


def requires_key(route: APIRoute) -> bool:
    return openapi.depends_on(route, _KEYED)


def install(app: FastAPI) -> None:
    openapi.install(app, requires_key)
