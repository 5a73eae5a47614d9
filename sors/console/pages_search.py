"""Outliers (the paid search, as cards), trends and trending."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import Response

from sors.catalog.trends.service import TRENDS_DEFAULT_TIME_FRAME
from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.render import page
from sors.console.routing import User, console_router

router = console_router()

PLATFORMS = ("tiktok", "instagram", "youtube")
CONTENT_TYPES = ("video", "slideshow", "reel", "image", "carousel", "short", "live")
SORTS = {"outlier_score": "Outlier score", "views": "Views", "likes": "Likes",
         "engagement_rate": "Engagement rate", "velocity": "Views per hour (24 h)",
         "recent": "Most recent"}
SCORE_METHODS = {"mean": "Mean of the window", "median": "Median, same format",
                 "age_adjusted": "Age-matched"}
NUMBERS = ("minOutlierScore", "minViews", "maxFollowers")
CHOICES = ("scoreWindow", "scoreMethod", "timeFrame", "sortBy")
TOP_ON_LANDING = 12  # trending posts the bare Outliers page opens with


def _number(raw: str) -> int | float | str:
    # The API judges the value; a non-number goes through as text and comes back as its 422.
    try:
        value = float(raw)
    except ValueError:
        return raw
    return int(value) if value.is_integer() else value


def search_body(request: Request) -> dict[str, BodyValue]:
    q = request.query_params
    body: dict[str, BodyValue] = {}
    if q.get("query", "").strip():
        body["query"] = q["query"].strip()
    for name in ("platforms", "contentTypes"):
        values = q.getlist(name)
        if values:
            body[name] = values
    for name in NUMBERS:
        if q.get(name, "").strip():
            body[name] = _number(q[name].strip())
    for name in CHOICES:
        if q.get(name):
            body[name] = q[name]
    for name in ("page", "pageSize"):
        if q.get(name, "").isdigit():
            body[name] = int(q[name])
    # Search by meaning: the "By meaning" box, or a post page's "More like this".
    if q.get("semantic") == "on" and "query" in body:
        body["semantic"] = True
    if q.get("similarTo", "").strip():
        body["similarTo"] = q["similarTo"].strip()
    return body


def _page_link(request: Request, number: int) -> str:
    items = [(k, v) for k, v in request.query_params.multi_items() if k != "page"]
    return "/app/outliers?" + urlencode([*items, ("page", str(number))])


@router.get("/outliers")
async def outliers(request: Request, user: User) -> Response:
    body = search_body(request)
    result = top = None
    if request.query_params:  # an empty form is free; each submitted search is one call
        result = await apicall.call(request, user.principal, "POST", "/api/v1/search/content",
                                    json=body)
    else:  # until then, the top outliers of the moment: GET /trending, free
        top = await apicall.call(request, user.principal, "GET", "/api/v1/trending")
    data = result.data if result is not None and result.ok else None
    links = {}
    if data:
        if data["page"] > 1:
            links["prev"] = _page_link(request, data["page"] - 1)
        if data["hasMore"]:
            links["next"] = _page_link(request, data["page"] + 1)
    return page(request, "outliers.html.j2", title="Outliers", form=request.query_params,
                body=body, result=result, data=data, links=links, platforms=PLATFORMS,
                top=top.data["posts"][:TOP_ON_LANDING] if top is not None and top.ok else None,
                content_types=CONTENT_TYPES, sorts=SORTS, score_methods=SCORE_METHODS,
                csv_link="/app/outliers.csv?" + urlencode(request.query_params.multi_items()),
                status=result.status if result is not None and not result.ok else 200)


@router.get("/outliers.csv")
async def outliers_csv(request: Request, user: User) -> Response:
    """The same search as CSV: the API answers `Accept: text/csv` for the same price."""
    result = await apicall.call(request, user.principal, "POST", "/api/v1/search/content",
                                json=search_body(request), accept="text/csv")
    if not result.ok:
        return page(request, "error.html.j2", status=result.status, title="CSV export",
                    result=result, message=None)
    headers = {k: v for k, v in result.headers.items()
               if k.startswith(("x-credits-", "x-page", "x-total", "x-has-more"))}
    headers["Content-Disposition"] = 'attachment; filename="sors-outliers.csv"'
    headers["Cache-Control"] = "no-store"
    return Response(result.body, media_type="text/csv; charset=utf-8", headers=headers)


@router.get("/trends")
async def trends(request: Request, user: User) -> Response:
    q = request.query_params
    body: dict[str, BodyValue] = {
        k: q[k] for k in ("query", "timeFrame", "scoreWindow") if q.get(k)}
    if "timeFrame" in q and not q["timeFrame"]:
        body["timeFrame"] = "all_time"  # "any time" (older links sent it empty)
    if q.getlist("platforms"):
        body["platforms"] = q.getlist("platforms")
    result = None
    if q:
        result = await apicall.call(request, user.principal, "POST", "/api/v1/trends", json=body)
    return page(request, "trends.html.j2", title="Trends", form=q, result=result,
                data=result.data if result is not None and result.ok else None,
                platforms=PLATFORMS, default_time_frame=TRENDS_DEFAULT_TIME_FRAME)


@router.get("/trending")
async def trending(request: Request, user: User) -> Response:
    result = await apicall.call(request, user.principal, "GET", "/api/v1/trending")
    return page(request, "trending.html.j2", title="Trending", result=result,
                data=result.data if result.ok else None)
