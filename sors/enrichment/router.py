"""request_transcript, download_post_media, and the signed media links they hand out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import FileResponse

from sors.accounts.deps import current_account_id
from sors.billing.pricing import get_pricing
from sors.enrichment import service
from sors.enrichment.schemas import TargetIn
from sors.enrichment.storage import LocalMediaStore, MediaStore, get_media_store
from sors.kit import clock
from sors.kit.errors import NotFound
from sors.kit.responses import JSONResponse
from sors.kit.routing import Bill, SorsRoute, get_bill, get_session
from sors.kit.security import TokenError

API = "/api/v1"
router = APIRouter(route_class=SorsRoute, tags=["enrichment"])
# Media links are fetched by anyone holding one (no key, no transaction).
files = APIRouter(tags=["enrichment"])

Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
CurrentBill = Annotated[Bill, Depends(get_bill)]
Target = Annotated[TargetIn | None, Body()]


def media_store(request: Request) -> MediaStore:
    state = request.app.state
    store = getattr(state, "media_store", None)
    if store is None:
        store = get_media_store(state.settings, signer=state.signer)
        state.media_store = store
    return store


@router.post(
    f"{API}/transcriptions",
    summary="Request a post's transcript (10 credits; 0 when it exists or is already pending)",
    openapi_extra={"x-sors-skill": "request_transcript"},
)
async def request_transcript(
    request: Request,
    session: Session,
    account_id: AccountId,
    bill: CurrentBill,
    body: Target = None,
) -> JSONResponse:
    post = await service.resolve_target(session, body)
    outcome = await service.request_transcript(
        session,
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("request_transcript"),
        max_attempts=request.app.state.settings.job_max_attempts,
    )
    if outcome.job is None:
        bill.cost = 0
        return JSONResponse({"status": "completed", "postId": post.id, "jobRef": None})
    if outcome.new_job:
        bill.job_ref = outcome.job.id
    else:
        bill.cost = 0  # this account's open job for the post: the same one, free
    return JSONResponse({"status": "pending", "jobRef": outcome.job.id, "postId": post.id})


@router.post(
    f"{API}/posts/media",
    summary="Download a post's media (3 credits; the first call after its fetch job is free)",
    openapi_extra={"x-sors-skill": "download_post_media"},
)
async def download_post_media(
    request: Request,
    session: Session,
    account_id: AccountId,
    bill: CurrentBill,
    body: Target = None,
) -> JSONResponse:
    post = await service.resolve_target(session, body)
    settings = request.app.state.settings
    outcome = await service.request_media(
        session,
        store=media_store(request),
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("download_post_media"),
        ttl_seconds=settings.media_url_ttl_seconds,
        max_attempts=settings.job_max_attempts,
        request_id=getattr(request.state, "request_id", None),
    )
    if outcome.queued is not None:
        job = outcome.queued.job
        assert job is not None
        if outcome.queued.new_job:
            bill.job_ref = job.id
        else:
            bill.cost = 0
        return JSONResponse({"status": "pending", "jobRef": job.id, "postId": post.id})
    if outcome.free:
        bill.cost = 0
    return JSONResponse(
        {
            "status": "ready",
            "postId": post.id,
            "media": outcome.items,
            "expiresAt": outcome.expires_at,
        }
    )


@files.get(
    "/media/{token}",
    summary="A stored media file (signed, expiring link; no API key)",
    responses={404: {"description": "Unknown or tampered link"}, 410: {"description": "Expired"}},
)
async def media_file(request: Request, token: str) -> FileResponse:
    store = media_store(request)
    if not isinstance(store, LocalMediaStore):
        raise NotFound("No such media link.")
    try:
        link = store.read_token(token)
    except TokenError as exc:
        if exc.reason == "expired":
            raise service.MediaLinkExpired(
                "This media link has expired; request a new one."
            ) from exc
        raise NotFound("No such media link.") from exc
    path = store.path(link.key)
    if not path.is_file():
        raise NotFound("This media file is no longer stored; request it again.")
    remaining = int((link.expires_at - clock.now()).total_seconds())
    return FileResponse(
        path,
        media_type=link.content_type,
        filename=path.name,
        content_disposition_type="inline",
        headers={"Cache-Control": f"private, max-age={max(0, min(3600, remaining))}"},
    )


# HEAD answers like GET (clients probe size and type first); one documented operation.
files.add_api_route("/media/{token}", media_file, methods=["HEAD"], include_in_schema=False)
router.include_router(files)
