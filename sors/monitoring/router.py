"""Tracking endpoints (all free): track, untrack, list, and the updates feed."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.errors import ValidationFailed
from sors.kit.principal import Principal, current_account_id, current_principal
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute, get_session
from sors.monitoring import service
from sors.monitoring.schemas import (
    TrackedUpdates,
    TrackIn,
    TrackingEntry,
    TrackingList,
    Untracked,
    UntrackIn,
    clamp_limit,
)
from sors.subscriptions.limits import PLAN_LIMIT_NOTE

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["monitoring"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
Caller = Annotated[Principal, Depends(current_principal)]


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


@router.post(
    "/tracking",
    summary="Monitor a profile (refreshes cost 10 credits each)",
    description="Refreshes a stored profile on a cadence (10 credits per refresh, charged "
    "through the key that saved the entry last, within its daily spend cap). Name it by "
    "`profileId`, `platform` + `handle`, or `url`; a profile not in the catalog is 404 (add "
    "it with POST /api/v1/crawls). Again for a monitored profile: the cadence is updated. "
    "A new profile past the plan's watchlist limit is 403 `plan_limit_reached`.",
    openapi_extra=_skill("track_profile"),
    response_model=TrackingEntry,
    responses=problems(403, 404, body=True, notes={403: PLAN_LIMIT_NOTE}),
)
async def track_profile(ctx: Context, caller: Caller, body: TrackIn) -> TrackingEntry:
    profile = await service.resolve_profile(ctx.session, body)
    entry = await service.track(
        ctx.session, caller.account_id, caller.key_id, profile, body.frequency, ctx.now,
        ctx.runtime.settings,
    )
    return TrackingEntry.of(entry, profile)


@router.delete(
    "/tracking",
    summary="Stop monitoring a profile",
    description="`profileId` in the query (or a JSON body). Not monitored: 404. Its posts stay "
    "searchable.",
    openapi_extra=_skill("untrack_profile"),
    response_model=Untracked,
    responses=problems(404, body=True),
)
async def untrack_profile(
    ctx: Context,
    account_id: AccountId,
    profileId: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    body: Annotated[UntrackIn | None, Body()] = None,
) -> Untracked:
    profile_id = profileId or (body.profileId if body else None)
    if not profile_id:
        raise ValidationFailed.single("profileId", "profileId is required (query or body).")
    await service.untrack(ctx.session, account_id, profile_id, ctx.now, ctx.runtime)
    return Untracked(profileId=profile_id, status="untracked")


@router.get(
    "/tracking",
    summary="Monitored profiles",
    description="Every profile this account monitors, with its cadence and next refresh.",
    openapi_extra=_skill("list_tracked_profiles"),
    response_model=TrackingList,
    responses=problems(),
)
async def list_tracked(session: Session, account_id: AccountId) -> TrackingList:
    entries = await service.list_tracking(session, account_id)
    return TrackingList(results=[TrackingEntry.of(e, p) for e, p in entries])


@router.get(
    "/tracking/updates",
    summary="Posts newly stored for monitored profiles",
    description="Posts first stored after this account's cursor, oldest first; the cursor "
    "advances past what is returned. `limit` 1-100 (clamped), default 50.",
    openapi_extra=_skill("get_tracked_updates"),
    response_model=TrackedUpdates,
    responses=problems(),
)
async def tracked_updates(
    ctx: Context,
    account_id: AccountId,
    limit: Annotated[int | None, Query()] = None,
) -> ModelResponse:
    # Rendered as built: the posts are the catalog's records (see service.updates).
    return ModelResponse(await service.updates(
        ctx.session, account_id, clamp_limit(limit), ctx.now,
        ctx.runtime.settings.jobs.baseline_min_age_hours))
