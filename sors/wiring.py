"""The one place that names every part of the service, by import, so a missing module fails
at import and nothing is found by name at run time:

- `ROUTERS`: every router, in the order the API document lists them;
- `REGISTRIES`: the job handlers by type, the scheduler's checks in the order a tick runs
  them, and the in-process events between domains with their listeners — handed to each
  process in its runtime (`sors.kit.runtime.Runtime`), which `Worker` and `Scheduler` read;
- every table, through `sors.models_registry` (which Alembic reads alone).

The doors (the app, the CLI's worker, scheduler and commands) build their runtime with
`REGISTRIES`; `Worker` and `Scheduler` refuse to start with nothing registered.
"""

from __future__ import annotations

from sors.accounts import router as accounts
from sors.alerts import router as alerts
from sors.alerts import schedule as alerts_schedule
from sors.analyses import router as analyses
from sors.analyses import schedule as analyses_schedule
from sors.analyses import tasks as analyses_tasks
from sors.api import index, sim_pages
from sors.billing import router as billing
from sors.boards import router as boards
from sors.breakouts import router as breakouts
from sors.catalog.records import router as records
from sors.catalog.search import router as search
from sors.catalog.trends import router as trends
from sors.catalog.vectors import tasks as vector_tasks
from sors.console import router as console
from sors.crawling import router as crawling
from sors.crawling import tasks as crawling_tasks
from sors.demand import router as demand
from sors.demand import schedule as demand_schedule
from sors.demand import tasks as demand_tasks
from sors.enrichment import router as enrichment
from sors.enrichment import tasks as enrichment_tasks
from sors.feedback import router as feedback
from sors.hashtags import router as hashtags
from sors.jobs import router as jobs
from sors.keeper import router as keeper
from sors.keeper import schedule as keeper_schedule
from sors.kit.runtime import Registries
from sors.models_registry import METADATA  # noqa: F401  (every table)
from sors.monitoring import router as monitoring
from sors.monitoring import schedule as monitoring_schedule
from sors.monitoring import service as monitoring_service
from sors.payments import router as payments
from sors.payments import service as payments_service
from sors.remix import router as remix
from sors.remix import tasks as remix_tasks
from sors.rising import router as rising
from sors.sounds import router as sounds
from sors.subscriptions import events as subscription_events
from sors.subscriptions import members_router
from sors.subscriptions import router as subscriptions
from sors.subscriptions import schedule as subscriptions_schedule
from sors.subscriptions import state as subscription_state
from sors.webhooks import router as webhooks
from sors.webhooks import schedule as webhooks_schedule
from sors.webhooks import tasks as webhooks_tasks

ROUTERS = (
    index.router,
    accounts.router,
    sim_pages.router,
    billing.router,
    feedback.router,
    search.router,
    records.router,
    trends.router,
    rising.router,
    trends.trending_router,
    breakouts.router,
    sounds.router,
    hashtags.router,
    jobs.router,
    crawling.router,
    enrichment.router,
    remix.router,
    analyses.router,
    demand.router,
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

REGISTRIES = Registries(
    handlers={
        **crawling_tasks.HANDLERS,
        **enrichment_tasks.HANDLERS,
        **remix_tasks.HANDLERS,
        **analyses_tasks.HANDLERS,
        **webhooks_tasks.HANDLERS,
        **vector_tasks.HANDLERS,
        **demand_tasks.HANDLERS,
    },
    checks=(
        *alerts_schedule.CHECKS,
        *keeper_schedule.CHECKS,
        *demand_schedule.CHECKS,
        *monitoring_schedule.CHECKS,
        *subscriptions_schedule.CHECKS,
        *webhooks_schedule.CHECKS,
        *analyses_schedule.CHECKS,
    ),
    # Events between domains that have no floor between them, connected here.
    listeners={
        # paused monitoring resumes when credits arrive
        payments_service.CREDITS_ARRIVING: (monitoring_service.resume_paused,),
        # Stripe Billing events are the subscriptions feature's
        payments_service.SUBSCRIPTION_EVENT: (subscription_events.handle,),
        # a plan change pauses or resumes monitoring past the plan's watchlist limit
        subscription_state.PLAN_CHANGED: (monitoring_service.apply_plan_limit,),
    },
)
