"""Catalog jobs: the index over all post vectors, (re)built when the scheduler finds it due
(catalog.vector_index). No account, no charge."""

from __future__ import annotations

from sors.catalog.vectors import index as vector_index
from sors.jobs.engine import JobContext
from sors.queue.models import Job

JOB_TYPE = "vector_index"


async def build_vector_index(ctx: JobContext, job: Job) -> dict[str, object]:
    """What the build did, for the job's result."""
    return await vector_index.train(ctx.db, job.payload["model"], int(job.payload["dims"]))


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {JOB_TYPE: build_vector_index}
