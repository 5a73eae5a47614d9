"""The request fields every catalog request shares (docs/API.md): platform names, score
windows and methods, paging, queries, category ids. The request bodies themselves live with
their endpoints (`catalog.search.schemas`, `catalog.trends.schemas`, `rising.schemas`)."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, Field

from sors.catalog.models import WINDOWS
from sors.kit.schemas import RequestModel
from sors.platforms import taxonomy
from sors.platforms.base import ALL_CONTENT_TYPES

# ---- request bodies -------------------------------------------------------------------

PlatformName = Literal["tiktok", "instagram", "youtube"]
ContentType = Literal[ALL_CONTENT_TYPES]  # type: ignore[valid-type]
Window = Literal[
    "one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year", "all_time"
]
ScoreMethod = Literal["mean", "median", "age_adjusted"]
assert set(get_args(Window)) == set(WINDOWS)

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
# Searches count and page through at most this many matches (see docs/API.md).
RESULT_WINDOW = 10_000


def _clamp(lo: int, hi: int) -> AfterValidator:
    return AfterValidator(lambda v: None if v is None else max(lo, min(hi, v)))


def _strip_query(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    return v or None


Query = Annotated[str | None, Field(max_length=200), AfterValidator(_strip_query)]
NonNegative = Annotated[float | None, Field(ge=0, allow_inf_nan=False)]
PageSize = Annotated[int | None, _clamp(1, MAX_PAGE_SIZE)]
# At most RESULT_WINDOW: page n starts at match (n - 1) × pageSize + 1, which must be within
# the first RESULT_WINDOW matches (else 422) — with pageSize 1, page RESULT_WINDOW is the
# last. The rule across the two fields is in the description: as JSON Schema it takes one
# branch per page size, more than Schemathesis's canonicaliser takes (it gives up past ~30).
Page = Annotated[int | None, Field(
    ge=1, le=RESULT_WINDOW,
    description=f"1-based; page n starts at match (n − 1) × pageSize + 1, which must lie within "
    f"the first {RESULT_WINDOW:,} matches (else 422 on `page`)")]


def known_category_id(v: str | None) -> str | None:
    """A `categoryId` must name a category of the taxonomy (shared by every request that
    takes one)."""
    if v is not None and v not in taxonomy.by_id():
        raise ValueError("unknown category id; GET /api/v1/categories lists them")
    return v

# A category of the taxonomy (its enum in the document; unknown ids are a 422).
CategoryId = Annotated[
    str | None,
    Field(
        max_length=64,
        description="An id from GET /api/v1/categories; covers its descendants too",
        json_schema_extra={"enum": [*sorted(taxonomy.by_id()), None]},
    ),
    AfterValidator(known_category_id),
]


class _Paged(RequestModel):
    page: Page = None
    pageSize: PageSize = None

    @property
    def page_number(self) -> int:
        return self.page or 1

    @property
    def page_size(self) -> int:
        return self.pageSize or DEFAULT_PAGE_SIZE


