"""The app `bench/overhead.py` serves: sors's own app, whose paid unit of work leaves the charge
out of a request that carries `X-Bench-Unbilled` — the unbilled side of the comparison.

Such a request runs exactly the billed call's path (middleware, key lookup, rate limit, the
route, its session, its reads, its commit, the JSON) with a bill of 0 credits and no
ride-along: the read is the route's own statement without the charge joined to it, nothing
is settled before the commit, and its transaction writes nothing. So billed / unbilled is the
whole cost of charging a call, on the same route and the same server. Benchmarks only: the
served product (`sors.app:create_app`) has no such header.

    uvicorn --factory bench.overhead_app:create_app
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from sors.api.paid import PaidUnitOfWork
from sors.app import create_app as sors_app
from sors.billing.deps import Bill
from sors.config import Settings
from sors.kit.routing import Endpoint, RouteSpec, UnitOfWork

UNBILLED_HEADER = "x-bench-unbilled"


class SwitchableUnitOfWork(PaidUnitOfWork):
    """The paid unit of work, or (with the header) the plain one with an empty bill."""

    async def run(self, endpoint: Endpoint, request: Request, spec: RouteSpec) -> Response:
        if UNBILLED_HEADER not in request.headers:
            return await super().run(endpoint, request, spec)
        request.state.bill = Bill(spec.skill or "", 0)  # the route reads it; ride stays None
        return await UnitOfWork.run(self, endpoint, request, spec)

    async def before_commit(self, session: AsyncSession, request: Request, spec: RouteSpec) -> None:
        if UNBILLED_HEADER not in request.headers:
            await super().before_commit(session, request, spec)


def create_app() -> FastAPI:
    app = sors_app(Settings())
    app.state.unit_of_work = SwitchableUnitOfWork()
    return app
