"""The per-request unit of work, with no domain knowledge.

Every API route is a `SorsRoute`. It reads what the route declares in its OpenAPI extras —
its skill (`x-sors-skill`) and whether it only reads (`x-sors-read`) — and its query names,
and hands each request to the app's unit of work (`app.state.unit_of_work`, chosen by the
app factory). `UnitOfWork` here is the plain one: one session per request, committed only
when the endpoint answered 2xx (rolled back otherwise), then the after-commit hooks. The
paid one that charges inside the same transaction lives with the doors (`sors.api.paid`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from sors.kit.errors import UnknownField
from sors.kit.openapi import query_names
from sors.kit.runtime import Runtime
from sors.kit.schemas import unknown_field_message

AfterCommit = Callable[[], Awaitable[None]]
Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class RouteSpec:
    """What a route declares: its skill (None: not priced), whether its transaction only
    reads (then a charge is its only write), and the query parameters it takes."""

    skill: str | None
    read_only: bool
    known_query: frozenset[str]


@dataclass
class RequestContext:
    """One request's unit of work: its session, the runtime it runs in, the instant it is
    handled at (one reading of the runtime's clock, so every row it writes agrees), and
    what runs after its commit."""

    session: AsyncSession
    runtime: Runtime
    now: datetime
    after_commit: list[AfterCommit] = field(default_factory=list)


class UnitOfWork:
    """One session per request; commit on 2xx, rollback on anything else. A subclass adds
    the last work inside the transaction (`before_commit`) and what to learn after a
    rollback (`after_rollback`)."""

    async def run(self, endpoint: Endpoint, request: Request, spec: RouteSpec) -> Response:
        async with runtime_of(request).database.sessionmaker() as session:
            ctx = open_context(request, session)
            try:
                refuse_unknown_query(request, spec.known_query)
                response = await endpoint(request)
                if response.status_code >= 400:
                    await session.rollback()
                    return response
                await self.before_commit(session, request, spec)
                await session.commit()
            except Exception as exc:
                await session.rollback()
                await self.after_rollback(session, request, exc)
                raise
        await run_after_commit(ctx)
        return response

    async def before_commit(self, session: AsyncSession, request: Request, spec: RouteSpec) -> None:
        """The endpoint answered 2xx; the transaction is still open."""

    async def after_rollback(self, session: AsyncSession, request: Request, exc: Exception) -> None:
        """The request failed and its transaction was rolled back; `exc` is re-raised next."""


class SorsRoute(APIRoute):
    def get_route_handler(self) -> Endpoint:
        original = super().get_route_handler()
        extra = self.openapi_extra or {}
        spec = RouteSpec(
            skill=extra.get("x-sors-skill"),
            read_only=bool(extra.get("x-sors-read")),
            known_query=query_names(self),
        )

        async def handler(request: Request) -> Response:
            unit: UnitOfWork = request.app.state.unit_of_work
            return await unit.run(original, request, spec)

        return handler


def open_context(request: Request, session: AsyncSession) -> RequestContext:
    runtime = runtime_of(request)
    ctx = RequestContext(session, runtime, runtime.now())
    request.state.ctx = ctx
    return ctx


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


async def run_after_commit(ctx: RequestContext) -> None:
    for hook in ctx.after_commit:
        await hook()


def refuse_unknown_query(request: Request, known: frozenset[str]) -> None:
    unknown = [name for name in request.query_params if name not in known]
    if unknown:
        names = sorted(known)
        raise UnknownField(
            [{"field": n, "message": unknown_field_message(n, names)} for n in unknown]
        )


# Dependencies are `async def`: FastAPI runs a plain `def` dependency in its thread pool,
# a thread hop per dependency per request (measured on the hot path: bench/overhead.py).
async def get_session(request: Request) -> AsyncSession:
    return request.state.ctx.session


async def get_context(request: Request) -> RequestContext:
    return context_of(request)


def context_of(request: Request) -> RequestContext:
    return request.state.ctx


async def get_runtime(request: Request) -> Runtime:
    return runtime_of(request)


Context = Annotated[RequestContext, Depends(get_context)]
CurrentRuntime = Annotated[Runtime, Depends(get_runtime)]
