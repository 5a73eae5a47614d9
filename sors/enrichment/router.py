"""request_transcript, download_post_media, and the signed media links they hand out."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request
from starlette.responses import FileResponse

from sors.billing.deps import Bill, get_bill
from sors.billing.pricing import get_pricing
from sors.enrichment import service
from sors.enrichment.errors import MediaLinkExpired, NotAMediaType
from sors.enrichment.schemas import (
    JobQueued,
    MediaReady,
    TargetIn,
    TranscriptCompleted,
)
from sors.enrichment.storage import LocalMediaStore, MediaStore, get_media_store
from sors.kit.clock import isoformat
from sors.kit.errors import ApiError, NotFound
from sors.kit.principal import current_account_id
from sors.kit.problems import Problem, problems
from sors.kit.routing import Context, SorsRoute, runtime_of
from sors.kit.security import TokenError
from sors.platforms.base import INLINE_MEDIA_TYPES, is_media_type

API = "/api/v1"
router = APIRouter(route_class=SorsRoute, tags=["enrichment"])
# Media links are fetched by anyone holding one (no key, no transaction).
files = APIRouter(tags=["enrichment"])

AccountId = Annotated[str, Depends(current_account_id)]
CurrentBill = Annotated[Bill, Depends(get_bill)]
Target = Annotated[TargetIn | None, Body()]


def media_store(request: Request) -> MediaStore:
    """The app's media store (an app service, like its signer), made at its first use."""
    state = request.app.state
    store: MediaStore | None = getattr(state, "media_store", None)
    if store is None:
        store = get_media_store(runtime_of(request).settings, signer=state.signer)
        state.media_store = store
    return store


@router.post(
    f"{API}/transcriptions",
    summary="Request a post's transcript (10 credits; 0 when it exists or is already pending)",
    description="Transcribes a post's speech (or reads a slideshow's text). Name it by `url` "
    "or `postId`. An existing transcript answers `completed` (0 credits); this account's "
    "pending job for the post is returned again (0 credits).",
    response_model=TranscriptCompleted | JobQueued,
    responses=problems(402, 404, body=True),
    openapi_extra={"x-sors-skill": "request_transcript"},
)
async def request_transcript(
    ctx: Context, account_id: AccountId, bill: CurrentBill, body: Target = None
) -> TranscriptCompleted | JobQueued:
    post = await service.resolve_target(ctx.session, body)
    outcome = await service.request_transcript(
        ctx.session,
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("request_transcript"),
        now=ctx.now,
        max_attempts=ctx.runtime.settings.jobs.max_attempts,
    )
    if outcome.job is None:
        bill.cost = 0
        return TranscriptCompleted(status="completed", postId=post.id, jobRef=None)
    if outcome.new_job:
        bill.job_ref = outcome.job.id
    else:
        bill.cost = 0  # this account's open job for the post: the same one, free
    return JobQueued(status="pending", jobRef=outcome.job.id, postId=post.id)


@router.post(
    f"{API}/posts/media",
    summary="Download a post's media (3 credits; the first call after its fetch job is free)",
    description="Signed, expiring links to the post's stored media (YouTube: the thumbnail). "
    "Media not stored yet: a fetch job is queued (`pending`, refunded if it fails); the next "
    "call within 24 h after it completes is free.",
    response_model=MediaReady | JobQueued,
    responses=problems(402, 404, body=True),
    openapi_extra={"x-sors-skill": "download_post_media"},
)
async def download_post_media(
    request: Request, ctx: Context, account_id: AccountId, bill: CurrentBill,
    body: Target = None,
) -> MediaReady | JobQueued:
    post = await service.resolve_target(ctx.session, body)
    settings = ctx.runtime.settings
    outcome = await service.request_media(
        ctx.session,
        store=media_store(request),
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("download_post_media"),
        ttl_seconds=settings.media.url_ttl_seconds,
        now=ctx.now,
        max_attempts=settings.jobs.max_attempts,
        request_id=getattr(request.state, "request_id", None),
    )
    if outcome.queued is not None:
        job = outcome.queued.job
        assert job is not None
        if outcome.queued.new_job:
            bill.job_ref = job.id
        else:
            bill.cost = 0
        return JobQueued(status="pending", jobRef=job.id, postId=post.id)
    if outcome.free:
        bill.cost = 0
    assert outcome.expires_at is not None
    return MediaReady(status="ready", postId=post.id, media=outcome.items,
                      expiresAt=isoformat(outcome.expires_at))


_MEDIA_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The file: an image, video or audio", "content": {
        "application/octet-stream": {}}},
    **problems(404, 410, key=False, notes={404: "Unknown or tampered link, or file gone",
                                           410: "The link has expired"}),
    415: {"model": Problem, "description": "The stored file is not an image, video or audio "
          "(`unsupported_media_type`); it is never served"},
}
# Served from this service's origin (the console's), a file must never run as a page:
# the browser may not sniff another type, and a sandboxed document runs no script.
_MEDIA_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"}


def _refused(error: ApiError) -> ApiError:
    error.headers.update(_MEDIA_HEADERS)
    return error


@files.head(
    "/media/{token}",
    summary="A stored media file's headers",
    description="As GET, without the body.",
    operation_id="head_media_file",
    responses=_MEDIA_RESPONSES,
    response_class=FileResponse,
)
@files.get(
    "/media/{token}",
    summary="A stored media file (signed, expiring link; no API key)",
    description="The URLs that download_post_media hands out. Signed and expiring; no key. "
    "Images, video and audio only, with `X-Content-Type-Options: nosniff` and "
    "`Content-Security-Policy: sandbox`.",
    operation_id="get_media_file",
    responses=_MEDIA_RESPONSES,
    response_class=FileResponse,
)
async def media_file(
    request: Request, token: Annotated[str, Path(max_length=2048)]
) -> FileResponse:
    store = media_store(request)
    if not isinstance(store, LocalMediaStore):
        raise _refused(NotFound("No such media link."))
    # No unit of work here (no key, no transaction): the clock the middleware refreshed.
    now = runtime_of(request).now()
    try:
        link = store.read_token(token, now)
    except TokenError as exc:
        if exc.reason == "expired":
            raise _refused(MediaLinkExpired(
                "This media link has expired; request a new one.")) from exc
        raise _refused(NotFound("No such media link.")) from exc
    if not is_media_type(link.content_type):
        raise _refused(NotAMediaType(
            f"This file's type ({link.content_type}) is not an image, video or audio; "
            "it is not served."))
    path = store.path(link.key)
    if not path.is_file():
        raise _refused(NotFound("This media file is no longer stored; request it again."))
    remaining = int((link.expires_at - now).total_seconds())
    media_type = link.content_type.split(";", 1)[0].strip().lower()
    return FileResponse(
        path,
        media_type=media_type,
        filename=path.name,
        # Inline only what the console embeds; anything else downloads.
        content_disposition_type="inline" if media_type in INLINE_MEDIA_TYPES else "attachment",
        headers={"Cache-Control": f"private, max-age={max(0, min(3600, remaining))}",
                 **_MEDIA_HEADERS},
    )


router.include_router(files)
