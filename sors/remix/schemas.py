"""The remix_post request body and the get_remix_result shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from sors.enrichment.schemas import JobState, TargetIn, poll_error
from sors.jobs.schemas import JobError
from sors.kit.schemas import ResponseModel, trimmed_length
from sors.queue.models import Job
from sors.remix.models import RemixRecord

NICHE_MIN, NICHE_MAX = 5, 500
TONE_MAX = 100


def _niche(v: str) -> str:
    v = v.strip()
    if not NICHE_MIN <= len(v) <= NICHE_MAX:
        raise ValueError(f"must be {NICHE_MIN}-{NICHE_MAX} characters after trimming")
    return v


def _tone(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    if len(v) > TONE_MAX:
        raise ValueError(f"must be at most {TONE_MAX} characters")
    return v or None


class RemixIn(TargetIn):
    targetNiche: Annotated[  # the contract's field name
        str,
        AfterValidator(_niche),
        Field(
            description=f"{NICHE_MIN}-{NICHE_MAX} characters after trimming",
            json_schema_extra={"pattern": trimmed_length(NICHE_MIN, NICHE_MAX)},
            examples=["home baking for beginners"],
        ),
    ]
    tone: Annotated[
        str | None,
        AfterValidator(_tone),
        Field(
            description=f"At most {TONE_MAX} characters after trimming",
            json_schema_extra={"anyOf": [
                {"type": "string", "pattern": trimmed_length(0, TONE_MAX)}, {"type": "null"}
            ]},
        ),
    ] = None


class ScriptSegment(ResponseModel):
    segment: int
    label: str | None
    startSecond: float | None
    endSecond: float | None
    visual: str | None
    voiceover: str | None
    onScreenText: str | None


class RemixKept(ResponseModel):
    hookType: str | None
    stoodOut: list[str]


class Remix(ResponseModel):
    title: str | None
    description: str | None
    script: list[ScriptSegment]
    checklist: list[str]
    engine: str | None = Field(description="An LLM model name, or the built-in offline engine")
    kept: RemixKept | None = Field(
        description="What the remix keeps from the post's breakdown (POST /analyses): its "
        "hook type and the stood-out features; null when the post has no breakdown"
    )


class RemixResult(ResponseModel):
    jobRef: str
    status: Literal["pending", "processing", "completed", "failed"]
    postId: str
    targetNiche: str
    tone: str | None
    remix: Remix | None = Field(description="Set once the job completed")
    error: JobError | None


SEGMENT_KEYS = (
    "segment",
    "label",
    "startSecond",
    "endSecond",
    "visual",
    "voiceover",
    "onScreenText",
)


def stored_remix(data: Mapping[str, Any]) -> Remix:
    """A stored remix (`remixes.remix`, JSON written by an earlier version maybe) as
    get_remix_result shows it: every documented key, absent ones null."""
    kept = data.get("kept")
    return Remix(
        title=data.get("title"),
        description=data.get("description"),
        script=[ScriptSegment(**{k: seg.get(k) for k in SEGMENT_KEYS})
                for seg in data.get("script") or []],
        checklist=list(data.get("checklist") or []),
        engine=data.get("engine"),
        kept=None if kept is None else RemixKept.model_validate(kept),
    )


def remix_result(job: Job, record: RemixRecord) -> RemixResult:
    done = JobState(job.status) is JobState.COMPLETED
    return RemixResult(
        jobRef=job.id,
        status=job.status,
        postId=record.post_id,
        targetNiche=record.target_niche,
        tone=record.tone,
        remix=stored_remix(record.remix) if done and record.remix is not None else None,
        error=poll_error(job),
    )
