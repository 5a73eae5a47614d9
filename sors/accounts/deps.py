"""The authorisation rule as a route dependency: `caller: Allowed[Action.MANAGE_MEMBERS]`
gives the calling principal, or refuses with 403 before the endpoint runs.

For the actions that manage the workspace (keys, webhooks, members, billing) the key is read
again in the request's own transaction, so a cap set or a membership ended a moment ago
(other processes cache a key for a second) already counts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request

from sors.accounts.errors import RoleForbidden
from sors.accounts.permissions import Action, check
from sors.accounts.service import principal_for_key_id
from sors.kit.principal import Principal, current_principal
from sors.kit.routing import context_of

_MANAGING = frozenset({Action.MANAGE_KEYS, Action.MANAGE_WEBHOOKS, Action.MANAGE_MEMBERS,
                       Action.MANAGE_BILLING})
_GUARDS: dict[Action, Callable[[Request], Awaitable[Principal]]] = {}


def _guard(action: Action) -> Callable[[Request], Awaitable[Principal]]:
    if action not in _GUARDS:
        async def guard(  # async: no thread hop per request
            request: Request, principal: Annotated[Principal, Depends(current_principal)]
        ) -> Principal:
            if action in _MANAGING:
                fresh = await principal_for_key_id(context_of(request).session, principal.key_id)
                if fresh is None:  # revoked, or its member removed, since the key was cached
                    raise RoleForbidden("This key no longer acts for the workspace.")
                principal = fresh
            check(principal, action)
            return principal

        _GUARDS[action] = guard
    return _GUARDS[action]


def allowed(action: Action) -> Any:
    """`Annotated[Principal, Depends(...)]`: the caller, allowed to take `action`."""
    return Annotated[Principal, Depends(_guard(action))]
