"""The FastAPI app factory: the door that builds the process's runtime (settings, clock,
database, the registries named in `sors.wiring`) and the app around it — the routers, the
paid unit of work, the middleware and error handlers, and the background roles it runs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.responses import Response

from sors import wiring
from sors.accounts.keycache import KeyCache
from sors.agents.http import install as install_mcp
from sors.api import openapi as api_openapi
from sors.api.paid import PaidUnitOfWork
from sors.config import Settings
from sors.kit import handlers, openapi
from sors.kit.clock import Clock
from sors.kit.db import Database, make_engine
from sors.kit.logging import configure_logging
from sors.kit.middleware import ApiMiddleware
from sors.kit.ratelimit import RateLimiter
from sors.kit.responses import JSONResponse
from sors.kit.runtime import Runtime
from sors.kit.security import Signer
from sors.platforms.registry import process_clock

DESCRIPTION = """A research API over TikTok, Instagram and YouTube posts: which posts overperform
their own account's baseline (the outlier score), why, and what to make next.
Authenticate with `Authorization: Bearer <key>` or `x-api-key: <key>`."""


def create_app(
    settings: Settings | None = None, *, db: Database | None = None, clock: Clock | None = None,
    roles: Sequence[str] = (),
) -> FastAPI:
    """`roles`: the background work this process runs beside the API (`worker`,
    `scheduler`; `world` builds the demo's simulated world). `db`: a database the caller
    owns (else the app opens its own while it runs); `clock`: a clock to run on (else the
    system clock, or in simulation the stored simulated time)."""
    settings = settings or Settings()
    configure_logging(settings)
    runtime = Runtime(settings, Clock(), wiring.REGISTRIES, db)
    runtime.clock = clock or process_clock(settings, lambda: runtime.database)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime.db is None
        if owned:
            runtime.db = Database(make_engine(settings))
        from sors.jobs.runtime import start_in_process, stop_in_process

        tasks = start_in_process(app.state, runtime, roles)
        if "world" in roles:  # `sors demo`: the rest of its simulated world
            from sors.demo.worldbuild import run_in_background

            app.state.world_build = asyncio.create_task(run_in_background(runtime))
            tasks.append(app.state.world_build)
        try:
            async with app.state.mcp.running():
                yield
        finally:
            await stop_in_process(app.state, tasks)
            if owned:
                await runtime.database.dispose()
                runtime.db = None

    app = FastAPI(
        title="sors — Social Outlier Research Service",
        version=openapi.API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        default_response_class=JSONResponse,
        # Served by sors.api.openapi: cached, offline docs assets, security schemes.
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        generate_unique_id_function=openapi.operation_id,
    )
    app.state.runtime = runtime
    app.state.unit_of_work = PaidUnitOfWork()
    app.state.limiter = RateLimiter(
        settings.redis.url, settings.rate_limits.per_minute, settings.rate_limits.ip_per_minute
    )
    app.state.signer = Signer(settings.resolved_secret_key)
    app.state.key_cache = KeyCache()
    handlers.install(app)
    api_openapi.install(app)
    for router in wiring.ROUTERS:
        app.include_router(router)
    install_mcp(app)  # after the routers: its tools are derived from their OpenAPI

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        from sors.keeper.status import COLLECTOR

        # The catalog's gauges come from the database; without it, the rest still shows.
        with contextlib.suppress(Exception):
            async with runtime.database.session() as s:
                await COLLECTOR.refresh(s, runtime.now())
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    app.add_middleware(ApiMiddleware)
    return app
