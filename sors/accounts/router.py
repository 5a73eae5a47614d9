"""An account's API keys: GET/POST /api/v1/keys, PATCH/DELETE /api/v1/keys/{keyId} (free;
not skills, so not MCP tools: managing keys is the account holder's business)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from sors.accounts import keys
from sors.accounts.deps import allowed
from sors.accounts.permissions import Action
from sors.accounts.schemas import (
    KeyCreated,
    KeyIn,
    KeyList,
    KeyOut,
    KeyPatch,
    KeyRevoked,
    key_created,
    key_out,
)
from sors.kit.idempotency import withhold
from sors.kit.principal import Principal, current_principal
from sors.kit.problems import problems
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["keys"])
Caller = Annotated[Principal, Depends(current_principal)]
Manager = allowed(Action.MANAGE_KEYS)
KeyId = Annotated[str, Path(max_length=64)]


@router.get("/keys", response_model=KeyList, summary="This account's active API keys",
            operation_id="list_keys", responses=problems(403),
            description="Every active key of this account (names, prefixes, caps; never the "
            "secrets). Free.")
async def list_keys(ctx: Context, caller: Caller) -> KeyList:
    views = await keys.list_keys(ctx.session, caller.account_id, ctx.now, caller)
    return KeyList(results=[key_out(v, caller.key_id) for v in views])


@router.post("/keys", response_model=KeyCreated, status_code=201,
             summary="Create an API key (the secret is shown once), optionally with a daily cap",
             operation_id="create_key", responses=problems(403, body=True),
             description="A new key for this account; `apiKey` is shown only in this answer. "
             "A key with a daily cap may not manage keys (403). Free.")
async def create_key(request: Request, ctx: Context, caller: Manager,
                     body: KeyIn | None = None) -> KeyCreated:
    body = body or KeyIn()
    view, secret = await keys.create(ctx.session, caller, name=body.name,
                                     daily_credit_cap=body.dailyCreditCap)
    withhold(request.state, view.key.id)  # a retry names the key, never its secret
    return key_created(view, caller.key_id, secret)


@router.patch("/keys/{keyId}", response_model=KeyOut,
              summary="Change a key's name or daily credit cap (null removes the cap)",
              operation_id="update_key", responses=problems(403, 404, body=True),
              description="Fields left out keep their value; `dailyCreditCap: null` removes "
              "the cap. Free.")
async def update_key(ctx: Context, caller: Manager, keyId: KeyId, body: KeyPatch) -> KeyOut:
    sent = body.model_fields_set  # a field left out keeps its value; null clears it
    change = keys.KeyChange(rename="name" in sent, name=body.name,
                            recap="dailyCreditCap" in sent, daily_credit_cap=body.dailyCreditCap)
    view = await keys.update(ctx.session, caller, keyId, change, ctx.now)
    return key_out(view, caller.key_id)


@router.delete("/keys/{keyId}", response_model=KeyRevoked,
               summary="Revoke a key (an account keeps at least one)",
               operation_id="revoke_key", responses=problems(403, 404, 409),
               description="Revokes the key at once; the last active key cannot be revoked "
               "(409 `last_key`). Free.")
async def revoke_key(request: Request, ctx: Context, caller: Manager, keyId: KeyId) -> KeyRevoked:
    await keys.revoke(ctx.session, caller, keyId, ctx.now)
    key_cache = request.app.state.key_cache

    async def forget() -> None:
        key_cache.forget(keyId)

    ctx.after_commit.append(forget)
    return KeyRevoked(keyId=keyId, status="revoked")
