"""Every domain's tables, imported by name so `METADATA` knows them all (Alembic, the tests).
A models module that does not exist fails at import."""

from __future__ import annotations

from sors.accounts import models as _accounts_models  # noqa: F401
from sors.alerts import models as _alerts_models  # noqa: F401
from sors.billing import models as _billing_models  # noqa: F401
from sors.boards import models as _boards_models  # noqa: F401
from sors.breakouts import models as _breakouts_models  # noqa: F401
from sors.catalog import models as _catalog_models  # noqa: F401
from sors.catalog.ingest import models as _catalog_keeper_models  # noqa: F401
from sors.catalog.usage import models as _catalog_usage_models  # noqa: F401
from sors.demand import models as _demand_models  # noqa: F401
from sors.email import models as _email_models  # noqa: F401
from sors.enrichment import models as _enrichment_models  # noqa: F401
from sors.events import models as _events_models  # noqa: F401
from sors.feedback import models as _feedback_models  # noqa: F401
from sors.kit import models as _kit_models  # noqa: F401
from sors.kit.db import Base
from sors.monitoring import models as _monitoring_models  # noqa: F401
from sors.payments import models as _payments_models  # noqa: F401
from sors.platforms import models as _platforms_models  # noqa: F401
from sors.platforms.sim import models as _sim_models  # noqa: F401
from sors.queue import models as _queue_models  # noqa: F401
from sors.remix import models as _remix_models  # noqa: F401
from sors.subscriptions import models as _subscriptions_models  # noqa: F401

METADATA = Base.metadata
