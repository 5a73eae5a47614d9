"""The errors of the jobs callers see."""

from __future__ import annotations

from sors.kit.errors import ApiError


class JobNotFound(ApiError):
    status = 404
    code = "job_not_found"
    title = "Job not found"
