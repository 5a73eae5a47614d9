from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sors.kit.clock import isoformat
from sors.kit.schemas import ResponseModel, Timestamp
from sors.queue.models import Job


class JobError(ResponseModel):
    code: str
    message: str


class CrawlResult(ResponseModel):
    profileId: str
    postsSeen: int
    newPosts: int
    source: Literal["sim", "web", "api", "apify"] | None = Field(
        default=None,
        description="Where the crawl's data came from: the simulated world, the platform's "
        "web pages (scrapers), YouTube's Data API, or a data provider (Apify)",
    )
    sourceCostUsd: float | None = Field(
        default=None,
        description="What the data provider reported the crawl's run cost the operator, in "
        "USD (provider crawls only; not a charge to this account)",
    )


class PostResult(ResponseModel):
    postId: str


class CommentsResult(ResponseModel):
    postId: str
    commentsSeen: int = Field(description="Comments the source returned")
    newComments: int = Field(description="Of those, new to the catalog")
    source: Literal["sim", "api", "apify"] | None = Field(
        description="Where they came from: the simulated world, YouTube's Data API, or a "
        "data provider (Apify)")
    sourceCostUsd: float | None = Field(
        description="What the data provider reported the run cost the operator, in USD "
        "(provider fetches only; not a charge to this account)")


class JobStatus(ResponseModel):
    jobRef: str
    type: Literal["crawl", "refresh", "transcription", "media", "remix", "analysis",
                  "comments"]
    status: Literal["pending", "processing", "completed", "failed"]
    createdAt: Timestamp
    startedAt: Timestamp | None
    finishedAt: Timestamp | None
    creditsCharged: int
    creditsRefunded: int
    error: JobError | None = Field(
        description="A failed job's error; on a pending job, the last transient error while "
        "it waits for its retry"
    )
    result: CrawlResult | CommentsResult | PostResult | None = Field(
        description="crawl/refresh: {profileId, postsSeen, newPosts, source, sourceCostUsd}; "
        "comments: {postId, commentsSeen, newComments, source, sourceCostUsd}; "
        "transcription, media, remix, analysis: {postId}"
    )


def job_status(job: Job) -> JobStatus:
    """GET /jobs/{jobRef}: a result's optional fields the job did not write stay unset (and
    out of the body)."""
    # A pending job may carry the last transient error while it waits to retry; only a
    # failed job's error is final.
    error = job.error if job.status in ("failed", "pending") else None
    result = job.result if job.status == "completed" else None
    return JobStatus(
        jobRef=job.id, type=job.type, status=job.status, createdAt=isoformat(job.created_at),
        startedAt=isoformat(job.started_at), finishedAt=isoformat(job.finished_at),
        creditsCharged=job.credits_charged, creditsRefunded=job.credits_refunded,
        error=error, result=result,  # raw JSON: validated into their models here
    )


def job_record(job: Job) -> dict[str, Any]:
    """The job's status as JSON: the data of `job.*` events, and what other bodies embed."""
    return job_status(job).model_dump(mode="json", exclude_unset=True)
