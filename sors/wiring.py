"""The one place that names every part of the service, by import, so a missing module fails
at import and nothing is found by name at run time:

- `ROUTERS`: every router, in the order the API document lists them;
- the job handlers and the scheduler's checks: their modules register them with
  `sors.jobs.engine.handler` and `sors.jobs.scheduler.register` when imported here;
- every table, through `sors.models_registry` (which Alembic reads alone).

The doors (the app, the CLI's worker and scheduler) import this module before they start a
worker or a scheduler; `Worker` and `Scheduler` refuse to start with nothing registered.
"""

from __future__ import annotations

from sors.accounts import router as accounts
from sors.alerts import router as alerts
from sors.alerts import schedule as _alerts_schedule  # noqa: F401
from sors.analyses import router as analyses
from sors.analyses import tasks as _analyses_tasks  # noqa: F401
from sors.api import index, sim_pages
from sors.billing import router as billing
from sors.boards import router as boards
from sors.breakouts import router as breakouts
from sors.catalog import router as catalog
from sors.catalog import tasks as _catalog_tasks  # noqa: F401
from sors.console import router as console
from sors.crawling import router as crawling
from sors.crawling import tasks as _crawling_tasks  # noqa: F401
from sors.enrichment import router as enrichment
from sors.enrichment import tasks as _enrichment_tasks  # noqa: F401
from sors.feedback import router as feedback
from sors.jobs import router as jobs
from sors.keeper import router as keeper
from sors.keeper import schedule as _keeper_schedule  # noqa: F401
from sors.models_registry import METADATA  # noqa: F401  (every table)
from sors.monitoring import router as monitoring
from sors.monitoring import schedule as _monitoring_schedule  # noqa: F401
from sors.monitoring import service as monitoring_service
from sors.payments import router as payments
from sors.payments import service as payments_service
from sors.remix import router as remix
from sors.remix import tasks as _remix_tasks  # noqa: F401
from sors.subscriptions import events as subscription_events
from sors.subscriptions import members_router
from sors.subscriptions import router as subscriptions
from sors.subscriptions import schedule as _subscriptions_schedule  # noqa: F401
from sors.subscriptions import state as subscription_state
from sors.webhooks import router as webhooks
from sors.webhooks import schedule as _webhooks_schedule  # noqa: F401
from sors.webhooks import tasks as _webhooks_tasks  # noqa: F401

ROUTERS = (
    index.router,
    accounts.router,
    sim_pages.router,
    billing.router,
    feedback.router,
    catalog.router,
    breakouts.router,
    jobs.router,
    crawling.router,
    enrichment.router,
    remix.router,
    analyses.router,
    monitoring.router,
    keeper.router,
    alerts.router,
    payments.router,
    subscriptions.router,
    members_router.router,
    console.router,
    webhooks.router,
    boards.router,
)

# Events between domains that have no floor between them, connected here.
payments_service.on_payment(monitoring_service.resume_paused)  # paused monitoring resumes
payments_service.on_subscription_event(subscription_events.handle)  # Stripe Billing events
subscription_state.on_plan_change(monitoring_service.apply_plan_limit)  # pause / resume
