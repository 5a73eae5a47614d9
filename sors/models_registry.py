"""Imports every domain's models so Base.metadata knows all tables (Alembic, tests)."""

from __future__ import annotations

import importlib
import importlib.util

from sors.kit.db import Base

MODEL_MODULES = (
    "sors.kit.models",
    "sors.accounts.models",
    "sors.billing.models",
    "sors.billing.checkout_models",
    "sors.feedback.models",
    "sors.catalog.models",
    "sors.breakouts.models",
    "sors.jobs.models",
    "sors.enrichment.models",
    "sors.remix.models",
    "sors.monitoring.models",
    "sors.alerts.models",
    "sors.email.models",
    "sors.platforms.sim.models",
    "sors.webhooks.models",
    "sors.platforms.models",
)


def load_all() -> type[Base]:
    for module in MODEL_MODULES:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
    return Base
