"""FastAPI dependencies other routers use to know who is calling."""

from __future__ import annotations

from fastapi import Request

from sors.accounts.service import Principal
from sors.kit.errors import Unauthorized


def current_principal(request: Request) -> Principal:
    principal = getattr(request.state, "principal", None)
    if principal is None:
        sent = request.headers.get("authorization") or request.headers.get("x-api-key")
        raise Unauthorized(
            "The API key is unknown or revoked." if sent else
            "Send an API key as 'Authorization: Bearer <key>' or 'x-api-key: <key>'."
        )
    return principal


def current_account_id(request: Request) -> str:
    return current_principal(request).account_id
