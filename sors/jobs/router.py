"""GET /jobs/{jobRef}: a job of the calling account."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Depends
from sqlalchemy.ext.asyncio import AsyncSession

from sors.jobs.errors import JobNotFound
from sors.jobs.schemas import JobStatus, job_status
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import SorsRoute, get_session
from sors.queue import repository as repo

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["jobs"])


@router.get(
    "/jobs/{jobRef}", summary="Job status (free; poll every 10-30 s)",
    description="A job of this account: crawl, refresh, transcription, media, remix, "
    "analysis or comments. "
    "Another account's job is 404, as a missing one.",
    response_model=JobStatus, response_model_exclude_unset=True, responses=problems(404),
    openapi_extra={"x-sors-skill": "get_job_status"},
)
async def get_job(
    jobRef: str,
    session: Annotated[AsyncSession, Depends(get_session)],
    account_id: Annotated[str, Depends(current_account_id)],
) -> JobStatus:
    job = await repo.get(session, unquote(jobRef))
    # Another account's job is indistinguishable from a missing one.
    if job is None or job.account_id != account_id:
        raise JobNotFound(f"No job {jobRef!r} for this account.")
    return job_status(job)
