"""The research console at /app: server-rendered pages over the API's own routes."""

from __future__ import annotations

from fastapi import APIRouter

from sors.console import (
    pages_account,
    pages_auth,
    pages_boards,
    pages_breakouts,
    pages_demand,
    pages_plan,
    pages_posts,
    pages_profiles,
    pages_rising,
    pages_search,
    pages_sounds,
)

router = APIRouter(include_in_schema=False)
for module in (pages_auth, pages_search, pages_rising, pages_breakouts, pages_sounds,
               pages_demand, pages_posts, pages_profiles, pages_account, pages_plan, pages_boards):
    router.include_router(module.router)
