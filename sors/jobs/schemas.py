from __future__ import annotations

from typing import Any

from sors.jobs.models import Job
from sors.kit.clock import isoformat


def job_record(job: Job) -> dict[str, Any]:
    return {
        "jobRef": job.id,
        "type": job.type,
        "status": job.status,
        "createdAt": isoformat(job.created_at),
        "startedAt": isoformat(job.started_at),
        "finishedAt": isoformat(job.finished_at),
        "creditsCharged": job.credits_charged,
        "creditsRefunded": job.credits_refunded,
        # A pending job may carry the last transient error while it waits to retry; only
        # a failed job's error is final.
        "error": job.error if job.status in ("failed", "pending") else None,
        "result": job.result if job.status == "completed" else None,
    }
