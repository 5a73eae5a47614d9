"""Demand: what a niche's, a creator's or a board's audience asks for, clustered, with the
questions no post answers yet."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.pages_breakouts import category_choices
from sors.console.pages_search import PLATFORMS, _number
from sors.console.render import page
from sors.console.routing import User, console_router

router = console_router()

KINDS = ("question", "request", "part_two", "confusion", "objection")
DEFAULT_KINDS = ("question", "request", "part_two", "confusion")
SORTS = (("size", "Most comments"), ("likes", "Most liked"), ("unanswered", "Unanswered first"))


def demand_body(request: Request) -> dict[str, BodyValue]:
    q = request.query_params
    body: dict[str, BodyValue] = {}
    for name in ("categoryId", "profileId", "boardId", "timeFrame", "sortBy"):
        if q.get(name, "").strip():
            body[name] = q[name].strip()
    for name in ("platforms", "kinds"):
        if q.getlist(name):
            body[name] = q.getlist(name)
    if q.getlist("postIds"):
        body["postIds"] = q.getlist("postIds")
    for name in ("minSize", "limit"):
        if q.get(name, "").strip():
            body[name] = _number(q[name].strip())
    return body


@router.get("/demand")
async def demand(request: Request, user: User) -> Response:
    categories = await apicall.call(request, user.principal, "GET", "/api/v1/categories")
    result = None
    if request.query_params:  # each submitted form is one paid call
        result = await apicall.call(request, user.principal, "POST", "/api/v1/demand/search",
                                    json=demand_body(request))
    data = result.data if result is not None and result.ok else None
    return page(request, "demand.html.j2", title="Demand", form=request.query_params,
                result=result, data=data,
                categories=category_choices(categories.data) if categories.ok else [],
                platforms=PLATFORMS, kinds=KINDS, default_kinds=DEFAULT_KINDS, sorts=SORTS,
                status=result.status if result is not None and not result.ok else 200)
