"""Webhook endpoints API (every route free, listed in the price list)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.deps import allowed
from sors.accounts.permissions import Action
from sors.kit.idempotency import withhold
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute, get_session
from sors.webhooks import service, ssrf
from sors.webhooks.schemas import (
    DeletedOut,
    DeliveryList,
    DeliveryOut,
    DeliveryState,
    DeliveryStatus,
    SecretOut,
    SettingsIn,
    SettingsOut,
    TestOut,
    WebhookCreated,
    WebhookIn,
    WebhookList,
    WebhookOut,
    WebhookPatch,
)

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["webhooks"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
# Changing endpoints, secrets and settings: not a viewer, not a capped key.
Manager = allowed(Action.MANAGE_WEBHOOKS)
EndpointId = Annotated[str, Path(max_length=64)]


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


def _policy(ctx: Context) -> ssrf.Policy:
    return ssrf.Policy.from_settings(ctx.runtime.settings)


def _endpoint_links(expr: str) -> dict[str, dict]:
    """Where an answer naming an endpoint (`expr`: where its id is) leads, for clients and
    for the fuzzer's stateful phase."""
    ops = ("get_webhook", "update_webhook", "list_webhook_deliveries", "test_webhook",
           "rotate_webhook_secret", "delete_webhook")
    return {
        "".join(w.title() for w in op.split("_")): link(op, **{"path.webhookId": expr})
        for op in ops
    }


# Fixed paths come before /webhooks/{webhookId} so they are not read as ids.
@router.get("/webhooks/settings", response_model=SettingsOut, summary="Webhook settings",
            openapi_extra=_skill("get_webhook_settings"),
    description='The balance under which a credits.low event fires (default 100). Free.',
    responses=problems(),
)
async def read_settings(session: Session, account_id: AccountId) -> SettingsOut:
    return await service.threshold(session, account_id)


@router.put("/webhooks/settings", response_model=SettingsOut,
            summary="Set the balance under which credits.low fires",
            openapi_extra=_skill("update_webhook_settings"),
    description='Sets `creditsLowThreshold`. Free.',
    responses=problems(403, body=True),
)
async def put_settings(ctx: Context, caller: Manager, body: SettingsIn) -> SettingsOut:
    return await service.set_threshold(ctx.session, caller.account_id, body, ctx.now)


@router.post("/webhooks", response_model=WebhookCreated,
             summary="Create a webhook endpoint (the secret is shown only now)",
             openapi_extra=_skill("create_webhook"),
    description=("Registers an https URL for events (all types unless `events` lists some), "
                 "in `format` `standard` (the default), `slack` or `discord`; the signing "
                 "secret is shown only in this answer. At most 10 endpoints (409); a private "
                 "or otherwise unsafe URL is 422 `unsafe_url`. Free."),
    responses=problems(403, 409, body=True, links=_endpoint_links("$response.body#/id")),
)
async def create(
    request: Request, ctx: Context, caller: Manager, body: WebhookIn
) -> WebhookCreated:
    made = await service.create(ctx.session, caller.account_id, body, _policy(ctx), ctx.now)
    withhold(request.state, made.id)  # a retry names the endpoint, never its secret
    return made


@router.get("/webhooks", response_model=WebhookList, summary="Webhook endpoints",
            openapi_extra=_skill("list_webhooks"),
    description="This account's webhook endpoints, oldest first. Free.",
    responses=problems(links=_endpoint_links("$response.body#/results/0/id")),
)
async def list_endpoints(ctx: Context, account_id: AccountId) -> WebhookList:
    return WebhookList(results=await service.list_endpoints(ctx.session, account_id, ctx.now))


@router.get("/webhooks/{webhookId}", response_model=WebhookOut, summary="A webhook endpoint",
            openapi_extra=_skill("get_webhook"),
    description="One endpoint of this account (another account's is 404). Free.",
    responses=problems(404),
)
async def get(ctx: Context, account_id: AccountId, webhookId: EndpointId) -> WebhookOut:
    return await service.get(ctx.session, account_id, webhookId, ctx.now)


@router.patch("/webhooks/{webhookId}", response_model=WebhookOut,
              summary="Change a webhook endpoint (url, description, events, enabled, format)",
              openapi_extra=_skill("update_webhook"),
    description=("Changes any of url, description, events, enabled, format; `enabled: true` "
                 "re-enables an endpoint the service disabled. Free."),
    responses=problems(403, 404, body=True),
)
async def update(ctx: Context, caller: Manager,
                 webhookId: EndpointId, body: WebhookPatch) -> WebhookOut:
    return await service.update(
        ctx.session, caller.account_id, webhookId, body, _policy(ctx), ctx.now)


@router.delete("/webhooks/{webhookId}", response_model=DeletedOut,
               summary="Delete a webhook endpoint and its delivery log",
               openapi_extra=_skill("delete_webhook"),
    description='Deletes the endpoint and its delivery log. Free.',
    responses=problems(403, 404),
)
async def delete(session: Session, caller: Manager, webhookId: EndpointId) -> DeletedOut:
    return await service.delete(session, caller.account_id, webhookId)


@router.post("/webhooks/{webhookId}/rotate-secret", response_model=SecretOut,
             summary="New signing secret; the old one also signs for 24 h",
             openapi_extra=_skill("rotate_webhook_secret"),
    description='A new signing secret; for 24 h deliveries carry signatures by both. Free.',
    responses=problems(403, 404),
)
async def rotate_secret(
    request: Request, ctx: Context, caller: Manager, webhookId: EndpointId
) -> SecretOut:
    withhold(request.state, webhookId)  # a retry names the endpoint, never the new secret
    return await service.rotate_secret(ctx.session, caller.account_id, webhookId, ctx.now)


@router.post("/webhooks/{webhookId}/test", response_model=TestOut,
             summary="Send a webhook.test event to this endpoint",
             openapi_extra=_skill("test_webhook"),
    description=("Queues a webhook.test event to this endpoint only (409 while it is "
                 "disabled). Free."),
    responses=problems(403, 404, 409),
)
async def test(ctx: Context, caller: Manager, webhookId: EndpointId) -> TestOut:
    return await service.send_test(ctx.session, caller.account_id, webhookId, ctx.now)


@router.get("/webhooks/{webhookId}/deliveries", response_model=DeliveryList,
            summary="Delivery attempts of this endpoint, newest first",
            openapi_extra=_skill("list_webhook_deliveries"),
    description=("Delivery attempts, newest first; `limit` 1-100 (clamped), page with "
                 "`before`. Free."),
    responses=problems(404, links={"RetryDelivery": link(
        "retry_webhook_delivery", **{"path.webhookId": "$request.path.webhookId",
                                     "path.deliveryId": "$response.body#/results/0/deliveryId"})}),
)
async def deliveries(
    session: Session,
    account_id: AccountId,
    webhookId: EndpointId,
    limit: Annotated[int, Query()] = 50,
    before: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[DeliveryState | None, Query()] = None,
) -> DeliveryList:
    return await service.deliveries(
        session, account_id, webhookId, limit=min(100, max(1, limit)), before=before,
        status=DeliveryStatus(status) if status else None,
    )


@router.post("/webhooks/{webhookId}/deliveries/{deliveryId}/retry", response_model=DeliveryOut,
             summary="Attempt a delivery again now",
             openapi_extra=_skill("retry_webhook_delivery"),
    description=("One more attempt now, outside the schedule (409 while the endpoint is "
                 "disabled). Free."),
    responses=problems(403, 404, 409),
)
async def retry(ctx: Context, caller: Manager, webhookId: EndpointId,
                deliveryId: Annotated[str, Path(max_length=64)]) -> DeliveryOut:
    return await service.retry(ctx.session, caller.account_id, webhookId, deliveryId, ctx.now)
