"""Who is calling: the account and the key a request was authenticated with.

`kit.middleware` resolves the key (or an in-process caller's principal) into
`request.state.principal`; routes depend on `current_principal` / `current_account_id`,
which refuse with 401 when there is none."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from sors.kit.errors import Unauthorized


@dataclass(frozen=True)
class Principal:
    account_id: str
    key_id: str
    # The key holder's role in the account's workspace: owner (the account's own keys),
    # member, or viewer (reads only); and the member, None for the owner's own keys.
    role: str = "owner"
    member_id: str | None = None
    # The key has a daily spend cap: it takes no action that could lift it (no keys, members,
    # billing or integrations: sors.accounts.permissions).
    capped: bool = False


# Async on purpose: FastAPI runs a plain `def` dependency in its thread pool, a thread hop
# on every request for what is an attribute read.
async def current_principal(request: Request) -> Principal:
    return principal_of(request)


def principal_of(request: Request) -> Principal:
    principal = getattr(request.state, "principal", None)
    if principal is None:
        sent = request.headers.get("authorization") or request.headers.get("x-api-key")
        raise Unauthorized(
            "The API key is unknown or revoked." if sent else
            "Send an API key as 'Authorization: Bearer <key>' or 'x-api-key: <key>'."
        )
    return principal


async def current_account_id(request: Request) -> str:
    return principal_of(request).account_id
