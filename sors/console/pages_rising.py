"""Rising posts (the paid trends/rising call): each post's curve against its creator's."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.render import page
from sors.console.rising_chart import rising_chart
from sors.console.routing import User, console_router

router = console_router()

PLATFORMS = ("tiktok", "instagram", "youtube")


@router.get("/rising")
async def rising(request: Request, user: User) -> Response:
    q = request.query_params
    body: dict[str, BodyValue] = {k: q[k] for k in ("query", "categoryId") if q.get(k)}
    if q.get("maxAgeHours", "").isdigit():
        body["maxAgeHours"] = int(q["maxAgeHours"])
    if q.getlist("platforms"):
        body["platforms"] = q.getlist("platforms")
    result = None
    if q.get("go"):
        result = await apicall.call(request, user.principal, "POST", "/api/v1/trends/rising",
                                    json=body)
    data = result.data if result is not None and result.ok else None
    charts = {}
    for p in (data or {}).get("posts", []):
        age = (p.get("projection") or {}).get("age_hours")
        charts[p["id"]] = rising_chart(p["curve"], p["snapshots"], age_hours=age)
    return page(request, "rising.html.j2", title="Rising", form=q, result=result, data=data,
                charts=charts, platforms=PLATFORMS)
