"""Every score of a crawled profile's posts, recomputed in one statement at each crawl.

Three baselines (docs/API.md, "Outlier scores"):
- mean (the seed's): per window, the mean of the profile's posts published in the window
  that are old enough to have their views (`baseline_min_age_hours`, default 48 h); null,
  with every score against it, when fewer than `BASELINE_MIN_POSTS` such posts.
- median: per window and format group, the median views of the creator's *other* mature
  posts in the window; null under `ROBUST_MIN_POSTS`.
- age-matched: the median of the creator's other posts' views *at this post's age*,
  interpolated between two of their snapshots; null under `ROBUST_MIN_POSTS`.
Plus `velocity`: views per hour over the last 24 h (since publication when younger).

Every baseline holds only the creator's posts of the post's own view definition
(`platforms.views`: YouTube counts views from the first frame since 2025-03-31 for Shorts and
2026-08-24 for long-form), so a definition change does not read as an outlier. Each mean
baseline also says how well it stands: its posts and the days of the window the creator's
known history covers (`baseline_ok`, a bit per window, when both suffice). And a post whose
engagement per view sits far below its creator's usual is flagged (`engagement_anomaly`):
views bought or botted, not an idea to copy.

The same statement writes the crawl's posts (staged by catalog.ingest) with their scores:
each post gets one new row version per crawl, not an upsert and then a score update (every
version inserts an entry into each index of `posts` whose predicate it meets;
docs/PERFORMANCE.md, "Ingest at a million posts").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.bulk import POST_COLS, StagedPost, columns
from sors.catalog.ingest.scoring_sql import recompute_sql
from sors.catalog.vectors import embeddings
from sors.config import JobSettings
from sors.kit.db import binary_sql, execute_rows

BASELINE_MIN_POSTS = 3
ROBUST_MIN_POSTS = 5
# A window's mean baseline is `ok` from this many posts, when the creator's known history
# covers at least this share of the window; else `thin` (docs/API.md, "Baseline quality").
BASELINE_OK_POSTS = 10
BASELINE_OK_COVERAGE = 0.5
# A mature post is an engagement anomaly when its (likes + comments) / views is below both
# the creator's p10 and this share of their median, with views at least their median, among
# at least ENGAGEMENT_MIN_POSTS mature posts of the same format group and view definition.
ENGAGEMENT_SHARE_OF_MEDIAN = 0.25
ENGAGEMENT_MIN_POSTS = 10
# A post younger than this has no velocity yet: its first minutes say little.
VELOCITY_MIN_AGE_HOURS = 1
# The earlier snapshot used to estimate views 24 h ago may be at most this old.
VELOCITY_MAX_LOOKBACK_HOURS = 72

_RECOMPUTE = {hot: binary_sql(text(recompute_sql(hot))) for hot in (False, True)}


# A window's mean baseline counts only posts at least this old (SORS_BASELINE_MIN_AGE_HOURS,
# `settings.jobs.baseline_min_age_hours`; this is its default).
DEFAULT_MIN_AGE_HOURS = JobSettings().baseline_min_age_hours


async def recompute_scores(
    session: AsyncSession,
    profile_ids: Sequence[str],
    at: Sequence[datetime],
    staged: Sequence[StagedPost] = (),
    *,
    min_age_hours: float = DEFAULT_MIN_AGE_HOURS,
) -> list[str]:
    """Averages for every window as of each profile's crawl time, and every live post's
    scores against them, in one statement.

    `staged`: the crawled posts (rows of `catalog.bulk.POST_COLS` plus `is_new`), written
    by the same statement with their scores; the stored rows of the existing ones must
    not be deleted. Returns the ids of the new posts it inserted (one that a concurrent
    crawl inserted first keeps that crawl's row)."""
    # Its estimated cost passes jit_above_cost, and JIT compilation took longer than the
    # work itself (EXPLAIN ANALYZE, docs/PERFORMANCE.md).
    await session.execute(text("SET LOCAL jit = off"))
    # A batch's intermediate rows (~1 kB per post with its baselines) are read several
    # times; under the default 4 MB they spill to temporary files and are read back.
    await session.execute(text("SET LOCAL work_mem = '32MB'"))
    rows = list(staged)
    inserted = await execute_rows(
        session,
        _RECOMPUTE[await embeddings.available(session)],
        {
            "ids": list(profile_ids),
            "ts": list(at),
            "min_age": min_age_hours * 3600.0,
            "min_mean": BASELINE_MIN_POSTS,
            "min_robust": ROBUST_MIN_POSTS,
            "vel_min_age": VELOCITY_MIN_AGE_HOURS,
            "vel_lookback": VELOCITY_MAX_LOOKBACK_HOURS,
            "ok_posts": BASELINE_OK_POSTS,
            "ok_cover": BASELINE_OK_COVERAGE,
            "eng_min_posts": ENGAGEMENT_MIN_POSTS,
            "eng_fraction": ENGAGEMENT_SHARE_OF_MEDIAN,
            **columns(rows, POST_COLS, "s_"),
            "s_is_new": [r["is_new"] for r in rows],
        },
    )
    return [r[0] for r in inserted]
