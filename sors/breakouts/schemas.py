"""POST /trends/breakouts: the request body and the answer's shape."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, WithJsonSchema, field_validator

from sors.catalog.records.fields import PlatformName, ScoreMethod, Window, known_category_id
from sors.catalog.records.schemas import FlatPost
from sors.kit.schemas import RequestModel, ResponseModel
from sors.platforms import taxonomy

IdeaKind = Literal["hashtag", "phrase", "format", "sound"]
IDEA_KINDS: tuple[str, ...] = ("hashtag", "phrase", "format", "sound")


def _clamp(lo: int, hi: int) -> AfterValidator:
    return AfterValidator(lambda v: None if v is None else max(lo, min(hi, v)))


class BreakoutsIn(RequestModel):
    timeFrame: Window | None = None
    categoryId: Annotated[
        str | None,
        Field(max_length=64, description="An id from GET /api/v1/categories",
              json_schema_extra={"enum": [*sorted(taxonomy.by_id()), None]}),
    ] = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    kinds: list[IdeaKind] | None = Field(None, max_length=4)
    minCreators: Annotated[int | None, Field(ge=2, le=50)] = None
    minScore: Annotated[float | None, Field(ge=0, allow_inf_nan=False)] = None
    scoreWindow: Window | None = None
    scoreMethod: ScoreMethod | None = None
    limit: Annotated[int | None, _clamp(1, 50)] = None

    _known_category = field_validator("categoryId")(known_category_id)


class _Out(ResponseModel):
    pass


# A flattened post record; the document has said "object" for it from the start (and titles
# the two single ones as pydantic titles a plain object field).
EvidencePost = Annotated[FlatPost, WithJsonSchema({"additionalProperties": True, "type": "object"})]


class BreakoutOut(_Out):
    kind: IdeaKind
    idea: str
    categoryId: str | None
    creatorCount: int
    postCount: int
    medianScore: float
    outlierShare: float = Field(
        description="The share of the group's outlier posts in the time frame that carry the "
        "idea")
    ordinaryShare: float | None = Field(
        description="The share of the same creators' other (non-outlier) posts in the time "
        "frame that carry it; null when they have none")
    lift: float = Field(
        description="outlierShare ÷ ordinaryShare (the ordinary side smoothed by one: "
        "(n + 1) ÷ (N + 1)): how much more common the idea is among the outliers. The "
        "order: highest lift first")
    firstPost: EvidencePost = Field(title="Firstpost")
    latestPost: EvidencePost = Field(title="Latestpost")
    evidence: list[EvidencePost] = Field(
        description="Each creator's best post for the idea (flattened post records), best "
        "first, for at most 10 creators (creatorCount counts them all)."
    )


class BreakoutsOut(_Out):
    timeFrame: str
    scoreWindow: str
    scoreMethod: str
    minCreators: int
    minScore: float
    categoryId: str | None
    breakouts: list[BreakoutOut]
