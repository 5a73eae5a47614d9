from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from sors.feedback import service
from sors.feedback.schemas import FeedbackIn, FeedbackReceived
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["feedback"])


@router.post(
    "/feedback", summary="Report an issue", status_code=200,
    description="A problem report for the operators (free). With `wantsUpdate`, the "
    "account is emailed when it is resolved.",
    response_model=FeedbackReceived, responses=problems(body=True),
    openapi_extra={"x-sors-skill": "report_issue"},
)
async def report_issue(
    body: FeedbackIn,
    request: Request,
    ctx: Context,
    account_id: Annotated[str, Depends(current_account_id)],
) -> FeedbackReceived:
    f = await service.submit(
        ctx.session, account_id, message=body.message, skill=body.skill,
        wants_update=body.wantsUpdate, request_id=request.state.request_id, now=ctx.now,
    )
    return FeedbackReceived(feedbackId=f.id, status="received")
