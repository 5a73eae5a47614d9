"""What the scheduler does for the hook library on each tick: every outlier the catalog holds
gets its features and hook from what is already stored — the caption, and the on-screen text
and speech where a transcript and a visual analysis exist — within a budget of posts per
tick (`SORS_HOOK_LIBRARY_POSTS_PER_TICK`). Outliers first seen, those stored before the hook
was reconciled, and those whose media arrived since are done, best score first; nothing is
fetched, so the pass costs only database time."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.analyses import repository as repo
from sors.analyses.breakdown import features_row, material
from sors.analyses.features import VERSION, post_features
from sors.catalog.models import OUTLIER_MIN_SCORE
from sors.kit.runtime import Runtime


async def hook_library(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Outliers given their features and hook this tick."""
    budget = rt.settings.keeper.hook_library_posts_per_tick
    if budget <= 0:
        return 0
    ids = await repo.outliers_without_hooks(session, min_score=OUTLIER_MIN_SCORE,
                                            version=VERSION, limit=budget)
    if not ids:
        return 0
    rows = await repo.posts_with_media(session, ids)
    await repo.save_features(
        session, [features_row(p.id, post_features(material(p, t, v))) for p, t, v in rows])
    return len(rows)


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("analyses.hook_library", hook_library),
)
