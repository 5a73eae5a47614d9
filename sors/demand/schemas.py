"""Request bodies and answers of fetch_comments and search_demand (docs/API.md, "Demand")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sors.catalog.records.fields import CategoryId, PlatformName, Window
from sors.enrichment.schemas import TargetIn
from sors.kit.schemas import RequestModel, ResponseModel

Kind = Literal["question", "request", "part_two", "confusion", "objection", "praise", "other"]
AskingKind = Literal["question", "request", "part_two", "confusion", "objection"]
SortBy = Literal["size", "likes", "unanswered"]
MAX_FETCH = 1000


class CommentsIn(TargetIn):
    """The post (by `postId` or `url`) and how many of its comments to fetch."""

    limit: Annotated[int, Field(
        ge=1, le=MAX_FETCH,
        description="Comments to fetch, most relevant first as the platform lists them "
        "(replies count as comments). Charged per started 100: 1-100 is one unit of "
        "GET /pricing's `fetch_comments` credits, 101-200 two.")] = 100


class CommentsQueued(ResponseModel):
    status: Literal["pending"]
    jobRef: str
    postId: str
    limit: int


class DemandSearchIn(RequestModel):
    categoryId: CategoryId = None
    profileId: Annotated[str | None, Field(
        min_length=1, max_length=64,
        description="One creator's posts (a profile id)")] = None
    boardId: Annotated[str | None, Field(
        min_length=1, max_length=64,
        description="The posts on one of your boards, and the posts of the profiles on it",
    )] = None
    postIds: Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]] | None, Field(
        min_length=1, max_length=100, description="These posts only")] = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    timeFrame: Window | None = Field(
        None, description="Comments written within it (default three_months)")
    kinds: list[AskingKind] | None = Field(
        None, max_length=5, description="Default: question, request, part_two, confusion")
    sortBy: SortBy | None = Field(
        None, description="size (default): most comments first; likes: most liked first; "
        "unanswered: clusters no post answers first (covered false, then true, then null: the "
        "smaller clusters not checked), "
        "each group by size")
    limit: Annotated[int | None, Field(ge=1, le=50, description="Clusters (default 20)")] = None
    minSize: Annotated[int | None, Field(
        ge=1, le=1000, description="Only clusters of at least this many comments (default "
        "1)")] = None


class ClusterPost(ResponseModel):
    postId: str
    url: str
    platform: str
    handle: str
    comments: int = Field(description="The cluster's comments under this post")


class Quote(ResponseModel):
    commentId: str
    text: str = Field(description="The comment, verbatim")
    likes: int
    postId: str


class NearPost(ResponseModel):
    postId: str
    url: str
    platform: str
    handle: str
    similarity: float = Field(description="Cosine similarity of the post's text to the "
                              "cluster's label, by the catalog's embedding model")


class DemandCluster(ResponseModel):
    label: str = Field(description="The cluster's most central comment, verbatim")
    labelCommentId: str
    size: int = Field(description="Comments in the cluster")
    likes: int = Field(description="Their likes, summed")
    texts: int = Field(description="Distinct texts among them")
    kinds: dict[str, int] = Field(description="Comments per kind")
    postCount: int
    posts: list[ClusterPost] = Field(description="The posts it came from, most comments "
                                     "first (at most 20; postCount counts them all)")
    quotes: list[Quote] = Field(description="Up to 5 of its comments, most liked first, one "
                                "per distinct text")
    commentIds: list[str] = Field(description="Its comments, most liked first (at most "
                                  "1,000; size counts them all)")
    covered: bool | None = Field(description="Whether a post in the catalog answers it: its "
                                 "nearest post's similarity is at least coveredSimilarity. "
                                 "null: not checked (post vectors of another model, or "
                                 "beyond the clusters checked)")
    nearestPosts: list[NearPost] = Field(description="The 3 posts nearest its label")


class DemandSearchOut(ResponseModel):
    timeFrame: str
    sortBy: str
    kinds: list[str]
    model: str = Field(description="The embedding model that clustered the comments")
    clusterSimilarity: float
    coveredSimilarity: float
    commentsMatched: int = Field(description="Asking comments in the scope")
    commentsClustered: int = Field(description="Of those, in clusters (all of them unless "
                                   "the scope holds more distinct texts than are clustered)")
    textsMatched: int
    textsClustered: int
    clustersFound: int
    clusters: list[DemandCluster]
