"""A profile (averages, scatter, track / untrack) and crawling a new one."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall, charts
from sors.console import repository as repo
from sors.console.auth import check_csrf, ensure_active
from sors.console.pages_posts import _idempotency
from sors.console.render import WINDOW_NAMES, outcome, page, redirect
from sors.console.routing import User, console_router
from sors.kit.routing import runtime_of

router = console_router()
FREQUENCIES = ("daily", "every_3_days", "weekly")


@router.get("/profiles/{profile_id}")
async def profile_page(request: Request, user: User, profile_id: str,
                       window: str = "three_months") -> Response:
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/profiles/{profile_id}")
    if not result.ok:
        return page(request, "error.html.j2", status=result.status, title="Profile",
                    message=(result.problem or {}).get("detail"), result=result)
    profile = result.data
    window = window if window in WINDOW_NAMES else "three_months"
    tracking = await apicall.call(request, user.principal, "GET", "/api/v1/tracking")
    entry = next((e for e in (tracking.data or {}).get("results", [])
                  if e["profileId"] == profile["id"]), None) if tracking.ok else None
    async with runtime_of(request).database.session() as session:
        posts = await repo.profile_posts(session, profile["id"], window)
    return page(request, "profile.html.j2", title=f"@{profile['handle']}", profile=profile,
                result=result, entry=entry, window=window, frequencies=FREQUENCIES,
                chart=charts.scatter(posts, WINDOW_NAMES[window]), post_count=len(posts))


@router.post("/profiles/{profile_id}/track")
async def track(request: Request, user: User, profile_id: str) -> Response:
    form = await check_csrf(request, user)
    body = {"profileId": profile_id, "frequency": form.get("frequency", "weekly")}
    result = await apicall.call(request, user.principal, "POST", "/api/v1/tracking", json=body,
                                idempotency_key=_idempotency(form))
    return redirect(request, f"/app/profiles/{profile_id}", outcome("Tracking", result))


@router.post("/profiles/{profile_id}/untrack")
async def untrack(request: Request, user: User, profile_id: str) -> Response:
    await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "DELETE", "/api/v1/tracking",
                                params={"profileId": profile_id})
    return redirect(request, f"/app/profiles/{profile_id}", outcome("Untracked", result))


@router.get("/crawl")
async def crawl_form(request: Request, user: User, job: str | None = None) -> Response:
    if not job:  # the job panel's own call checks the key; a bare form checks it here
        await ensure_active(request, user)
    return page(request, "crawl.html.j2", title="Crawl a profile", job=job)


@router.post("/crawl")
async def crawl(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    body = {"platform": form.get("platform", ""), "handle": form.get("handle", "")}
    result = await apicall.call(request, user.principal, "POST", "/api/v1/crawls", json=body,
                                idempotency_key=_idempotency(form))
    if result.ok and result.data.get("profileId"):
        return redirect(request, f"/app/profiles/{result.data['profileId']}",
                        outcome("Already tracked: crawl not needed", result))
    if result.ok:
        return redirect(request, f"/app/crawl?job={result.data['jobRef']}",
                        outcome(f"Crawl of @{result.data['handle']} queued", result))
    return page(request, "crawl.html.j2", status=result.status, title="Crawl a profile",
                job=None, result=result, form=form)
