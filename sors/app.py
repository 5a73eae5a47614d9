"""The FastAPI app factory: routers, middleware, error handlers."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.responses import Response

from sors.accounts.keycache import KeyCache
from sors.agents.http import install as install_mcp
from sors.config import Settings, get_settings
from sors.kit import handlers, openapi
from sors.kit.db import Database, make_engine
from sors.kit.logging import configure_logging
from sors.kit.middleware import ApiMiddleware
from sors.kit.ratelimit import RateLimiter
from sors.kit.responses import JSONResponse
from sors.kit.security import Signer

DESCRIPTION = """A research API over TikTok, Instagram and YouTube posts: which posts overperform
their own account's baseline (the outlier score), why, and what to make next.
Authenticate with `Authorization: Bearer <key>` or `x-api-key: <key>`."""


ROUTER_MODULES = (
    "sors.kit.index",
    "sors.accounts.router",
    "sors.platforms.sim.pages",
    "sors.billing.router",
    "sors.feedback.router",
    "sors.catalog.router",
    "sors.breakouts.router",
    "sors.jobs.router",
    "sors.crawling.router",
    "sors.enrichment.router",
    "sors.remix.router",
    "sors.monitoring.router",
    "sors.alerts.router",
    "sors.billing.checkout_router",
    "sors.console.router",
    "sors.webhooks.router",
)


def _routers() -> list:
    routers = []
    for module in ROUTER_MODULES:
        # Domains land one issue at a time; a domain without a router yet is skipped.
        if importlib.util.find_spec(module) is None:
            continue
        routers.append(importlib.import_module(module).router)
    return routers


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
        # Served by sors.kit.openapi: cached, offline docs assets, security schemes.
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        generate_unique_id_function=openapi.operation_id,
    )
    app.state.settings = settings
    app.state.db = db
    app.state.sim_clock = None
    app.state.limiter = RateLimiter(
        settings.redis_url, settings.rate_limit_per_minute, settings.rate_limit_ip_per_minute
    )
    app.state.signer = Signer(settings.resolved_secret_key)
    app.state.key_cache = KeyCache()
    handlers.install(app)
    openapi.install(app)
    for router in _routers():
        app.include_router(router)
    install_mcp(app)  # after the routers: its tools are derived from their OpenAPI

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        from sors.catalog.status import COLLECTOR
        from sors.kit import clock

        # The catalog's gauges come from the database; without it, the rest still shows.
        with contextlib.suppress(Exception):
            async with app.state.db.session() as s:
                await COLLECTOR.refresh(s, clock.now())
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    app.add_middleware(ApiMiddleware)
    return app
