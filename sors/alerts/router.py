"""Alert endpoints (free): create or update, list, delete. The keyless confirmation and
stop pages linked from emails live in sors.alerts.pages and share this `router`."""

from __future__ import annotations

from typing import Annotated

import structlog
from fastapi import APIRouter, Depends, Path, Request
from sqlalchemy.ext.asyncio import AsyncSession

from sors.alerts import digests, pages, service
from sors.alerts.schemas import AlertIn, AlertList, AlertOut, AlertUpsert
from sors.kit.principal import Principal, current_account_id, current_principal
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute, get_session
from sors.subscriptions.limits import PLAN_LIMIT_NOTE

log = structlog.get_logger("sors.alerts")

api = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["alerts"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
Caller = Annotated[Principal, Depends(current_principal)]


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


@api.post(
    "/alerts",
    summary="Create or update a viral alert",
    description="Emails a digest when a post of the profile scores at least "
    "`minOutlierScore` within `postAgeDays` of publication (5 credits per email sent, "
    "charged through the key that saved the alert last, within its daily spend cap). "
    "An address other than the account's gets a confirmation email first. Limits: 25 active "
    "alerts, 3 unconfirmed addresses (409); a new profile past the plan's followed-profile "
    "limit is 403 `plan_limit_reached`.",
    openapi_extra=_skill("create_viral_alert"),
    response_model=AlertUpsert,
    responses=problems(403, 404, 409, body=True, notes={403: PLAN_LIMIT_NOTE}, links={
        "DeleteAlert": link(
            "delete_viral_alert", **{"path.alertId": "$response.body#/alert/alertId"}
        ),
    }),
)
async def create_alert(
    request: Request, ctx: Context, caller: Caller, body: AlertIn
) -> AlertUpsert:
    rt, now, account_id = ctx.runtime, ctx.now, caller.account_id
    out = await service.upsert_alert(
        ctx.session, account_id, caller.key_id, body, now, rt.settings
    )
    if out.send_confirmation:
        signer = request.app.state.signer

        async def confirm_after_commit() -> None:
            try:
                await digests.send_confirmation(
                    rt.database.sessionmaker, rt.settings, signer, account_id, body.email, now
                )
            except Exception:  # the scheduler retries what did not go out
                log.exception("alerts.confirmation_failed", account=account_id)

        ctx.after_commit.append(confirm_after_commit)
    return AlertUpsert(created=out.created, alert=await service.record(ctx.session, out.alert_id))


@api.get(
    "/alerts",
    summary="Viral alerts of this account",
    description="Every alert of this account, active and ended (free).",
    openapi_extra=_skill("list_viral_alerts"),
    response_model=AlertList,
    responses=problems(links={"DeleteAlert": link(
        "delete_viral_alert", **{"path.alertId": "$response.body#/results/0/alertId"})}),
)
async def list_alerts(session: Session, account_id: AccountId) -> AlertList:
    return AlertList(results=await service.list_alerts(session, account_id))


@api.delete(
    "/alerts/{alertId}",
    summary="End a viral alert",
    description="Ends the alert (`endedReason: deleted`) and answers its record (free).",
    openapi_extra=_skill("delete_viral_alert"),
    response_model=AlertOut,
    responses=problems(404),
)
async def delete_alert(
    ctx: Context,
    account_id: AccountId,
    alertId: Annotated[str, Path(max_length=64)],
) -> AlertOut:
    return await service.delete_alert(ctx.session, account_id, alertId, ctx.now)


router = APIRouter()
router.include_router(api)
router.include_router(pages.router)
