"""Request bodies of the enrichment endpoints and the stored records' contract shapes."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field

from sors.catalog.records.schemas import TranscriptOut, VisualAnalysisOut  # noqa: F401
from sors.enrichment.models import PostMedia
from sors.enrichment.responses import (  # noqa: F401  (the domain's models, in one place)
    JobQueued,
    JobState,
    MediaItem,
    MediaReady,
    TranscriptCompleted,
)
from sors.jobs.schemas import JobError
from sors.kit.schemas import STRIPPED, RequestModel, one_of_sets
from sors.platforms.urls import POST_URL_PATTERN
from sors.queue.models import Job


def _blank_to_none(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    return v or None


# A blank string counts as absent, so `{"url": ""}` is `missing_target`, not a bad URL.
OptionalText = Annotated[str | None, Field(max_length=2048), AfterValidator(_blank_to_none)]
PostUrlText = Annotated[str | None, Field(
    max_length=2048,
    description="A TikTok, Instagram or YouTube post URL (blank counts as absent). The pattern "
    "states the canonical forms; the parser also reads any letter case, empty path segments, "
    "a username before an Instagram post's code and query strings. Short links are 422 "
    "`short_link_not_supported`, any other URL 422 `unsupported_url`.",
    json_schema_extra={"pattern": f"^[{STRIPPED}]*$|{POST_URL_PATTERN}"},
), AfterValidator(_blank_to_none)]


# "Supply one of": `url`, `postId`, or both, not null nor blank.
TARGET_RULE = one_of_sets(["url"], ["postId"], blank_is_absent=True)


class TargetIn(RequestModel):
    """A post named by its public URL, by its id, or by both (which must agree). Neither (or
    only blank ones): 422 `missing_target`."""

    model_config = ConfigDict(json_schema_extra=TARGET_RULE)

    url: PostUrlText = None
    postId: OptionalText = None  # the contract's field name


# ---- records (docs/API.md) ---------------------------------------------------------------


def media_item(m: PostMedia, url: str) -> MediaItem:
    return MediaItem(
        kind=m.kind, url=url, position=m.position, contentType=m.content_type,
        width=m.width, height=m.height, durationSeconds=m.duration_seconds,
    )


def poll_error(job: Job) -> JobError | None:
    """What a job's poll shows as its error, as GET /jobs/{jobRef} does: a failed job's
    final error, or a pending job's last transient one while it waits to retry."""
    shown = JobState(job.status) in (JobState.FAILED, JobState.PENDING) and job.error
    return JobError.model_validate(job.error) if shown else None
