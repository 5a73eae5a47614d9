"""`GET /api/v1`: where a newcomer (or an agent) lands first — what this is and where to go.

No key needed; every link is absolute (built from SORS_BASE_URL) and answers 200."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from sors import __version__
from sors.kit.problems import problems
from sors.kit.routing import runtime_of
from sors.kit.schemas import ResponseModel

router = APIRouter(tags=["index"])


class ApiLinks(ResponseModel):
    docs: str
    openapi: str
    pricing: str
    trending: str


class ApiIndex(ResponseModel):
    name: str
    version: str
    authentication: str
    conventions: str
    links: ApiLinks


@router.get(
    "/api/v1",
    operation_id="api_index",
    summary="API index: links to docs, pricing, OpenAPI",
    description="What this API is, how to authenticate, its two conventions (casing, money) "
    "and absolute links to the interactive docs, the OpenAPI document, the price list and "
    "trending posts. No key needed; free.",
    response_model=ApiIndex,
    responses=problems(key=False),
)
async def api_index(request: Request) -> ApiIndex:
    base = runtime_of(request).settings.base_url.rstrip("/")
    api = f"{base}/api/v1"
    return ApiIndex(
        name="sors — Social Outlier Research Service",
        version=__version__,
        authentication="Authorization: Bearer <key> or x-api-key: <key> (pricing, trending "
        "and shared board links need none)",
        conventions="Post and profile records are snake_case like the platform data; every "
        "other field is camelCase. Billable calls charge only on success and report "
        "X-Credits-Charged and X-Credits-Balance.",
        links=ApiLinks(
            docs=f"{base}/docs",
            openapi=f"{api}/openapi.json",
            pricing=f"{api}/pricing",
            trending=f"{api}/trending",
        ),
    )


@router.get("/", include_in_schema=False)
async def root() -> RedirectResponse:
    # The base URL itself (the footer of every email links it) leads to the documentation.
    return RedirectResponse("/docs", status_code=307)
