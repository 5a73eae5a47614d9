"""The FastAPI app factory: the routers named in `sors.wiring`, the paid unit of work, the
middleware and error handlers, the injected clock sync (simulated time)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.responses import Response

from sors import wiring
from sors.accounts.keycache import KeyCache
from sors.agents.http import install as install_mcp
from sors.api import openapi as api_openapi
from sors.api.paid import PaidUnitOfWork
from sors.config import Settings, get_settings
from sors.kit import handlers, openapi
from sors.kit.db import Database, make_engine
from sors.kit.logging import configure_logging
from sors.kit.middleware import ApiMiddleware
from sors.kit.ratelimit import RateLimiter
from sors.kit.responses import JSONResponse
from sors.kit.security import Signer
from sors.platforms.registry import sync_clock

DESCRIPTION = """A research API over TikTok, Instagram and YouTube posts: which posts overperform
their own account's baseline (the outlier score), why, and what to make next.
Authenticate with `Authorization: Bearer <key>` or `x-api-key: <key>`."""


def create_app(settings: Settings | None = None, *, db: Database | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = app.state.db is None
        if owned:
            app.state.db = Database(make_engine(settings))
        roles = [r for r in os.environ.get("SORS_INPROCESS_ROLES", "").split(",") if r]
        from sors.jobs.runtime import start_in_process, stop_in_process

        tasks = start_in_process(app.state, roles)
        if "world" in roles:  # `sors demo`: the rest of its simulated world
            from sors.demo.worldbuild import run_in_background

            app.state.world_build = asyncio.create_task(run_in_background(app.state.db))
            tasks.append(app.state.world_build)
        try:
            async with app.state.mcp.running():
                yield
        finally:
            await stop_in_process(app.state, tasks)
            if owned:
                await app.state.db.dispose()
                app.state.db = None

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
    app.state.settings = settings
    app.state.db = db
    app.state.sim_clock = None
    # Simulated time lives in the database: each request brings this process's clock up to it.
    app.state.clock_sync = sync_clock if settings.platform_source == "sim" else None
    app.state.unit_of_work = PaidUnitOfWork()
    app.state.limiter = RateLimiter(
        settings.redis_url, settings.rate_limit_per_minute, settings.rate_limit_ip_per_minute
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
        from sors.kit import clock

        # The catalog's gauges come from the database; without it, the rest still shows.
        with contextlib.suppress(Exception):
            async with app.state.db.session() as s:
                await COLLECTOR.refresh(s, clock.now())
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    app.add_middleware(ApiMiddleware)
    return app
