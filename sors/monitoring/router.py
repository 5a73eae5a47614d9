"""Tracking endpoints (all free): track, untrack, list, and the updates feed."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.deps import current_account_id
from sors.kit import clock
from sors.kit.errors import ValidationFailed
from sors.kit.responses import JSONResponse
from sors.kit.routing import SorsRoute, get_session
from sors.monitoring import service
from sors.monitoring.schemas import TrackIn, UntrackIn, clamp_limit, entry_record

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["monitoring"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


@router.post(
    "/tracking",
    summary="Monitor a profile (refreshes cost 10 credits each)",
    openapi_extra=_skill("track_profile"),
)
async def track_profile(session: Session, account_id: AccountId, body: TrackIn) -> JSONResponse:
    profile = await service.resolve_profile(session, body)
    entry = await service.track(session, account_id, profile, body.frequency, clock.now())
    return JSONResponse(entry_record(entry, profile))


@router.delete(
    "/tracking", summary="Stop monitoring a profile", openapi_extra=_skill("untrack_profile")
)
async def untrack_profile(
    session: Session,
    account_id: AccountId,
    profileId: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    body: Annotated[UntrackIn | None, Body()] = None,
) -> JSONResponse:
    profile_id = profileId or (body.profileId if body else None)
    if not profile_id:
        raise ValidationFailed.single("profileId", "profileId is required (query or body).")
    await service.untrack(session, account_id, profile_id)
    return JSONResponse({"profileId": profile_id, "status": "untracked"})


@router.get(
    "/tracking", summary="Monitored profiles", openapi_extra=_skill("list_tracked_profiles")
)
async def list_tracked(session: Session, account_id: AccountId) -> JSONResponse:
    entries = await service.list_tracking(session, account_id)
    return JSONResponse({"results": [entry_record(e, p) for e, p in entries]})


@router.get(
    "/tracking/updates",
    summary="Posts newly stored for monitored profiles",
    openapi_extra=_skill("get_tracked_updates"),
)
async def tracked_updates(
    session: Session,
    account_id: AccountId,
    limit: Annotated[int | None, Query()] = None,
) -> JSONResponse:
    return JSONResponse(await service.updates(session, account_id, clamp_limit(limit)))
