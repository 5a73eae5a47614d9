"""Sounds: trending sounds by niche (the paid trends/sounds call) and one sound's usage over
time (the paid GET /sounds/{id})."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.pages_breakouts import category_choices
from sors.console.pages_search import PLATFORMS
from sors.console.render import page
from sors.console.routing import User, console_router

router = console_router()

STAGES = ("emerging", "rising", "peaking", "fading")
WINDOWS = {"one_week": "one week", "two_weeks": "two weeks", "one_month": "one month"}


def sounds_body(request: Request) -> dict[str, BodyValue]:
    q = request.query_params
    body: dict[str, BodyValue] = {k: q[k] for k in ("categoryId", "timeFrame") if q.get(k)}
    for name in ("platforms", "stages"):
        if q.getlist(name):
            body[name] = q.getlist(name)
    return body


@router.get("/sounds")
async def sounds(request: Request, user: User) -> Response:
    categories = await apicall.call(request, user.principal, "GET", "/api/v1/categories")
    niches = [c for c in categories.data if not c.get("parentId")] if categories.ok else []
    result = None
    if request.query_params.get("go"):  # each submitted form is one paid call
        result = await apicall.call(request, user.principal, "POST", "/api/v1/trends/sounds",
                                    json=sounds_body(request))
    data = result.data if result is not None and result.ok else None
    return page(request, "sounds.html.j2", title="Sounds", form=request.query_params,
                result=result, data=data, categories=category_choices(niches),
                platforms=PLATFORMS, stages=STAGES, windows=WINDOWS,
                status=result.status if result is not None and not result.ok else 200)


@router.get("/sounds/{sound_id}")
async def sound(request: Request, user: User, sound_id: str) -> Response:
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/sounds/{sound_id}")
    data = result.data if result.ok else None
    peak = max((d["posts"] for d in (data or {}).get("usage", [])), default=0)
    return page(request, "sound.html.j2", title=(data or {}).get("title") or "Sound",
                result=result, data=data, peak=peak,
                status=result.status if not result.ok else 200)
