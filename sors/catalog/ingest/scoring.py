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

from sors.catalog.ingest.bulk import POST_COLS, POST_UPDATED, StagedPost, arrays, columns
from sors.catalog.models import WINDOWS
from sors.catalog.vectors import embeddings
from sors.catalog.vectors.schema import HOT_POSTS
from sors.config import JobSettings
from sors.kit.db import binary_sql, execute_rows

BASELINE_MIN_POSTS = 3
ROBUST_MIN_POSTS = 5
# A post younger than this has no velocity yet: its first minutes say little.
VELOCITY_MIN_AGE_HOURS = 1
# The earlier snapshot used to estimate views 24 h ago may be at most this old.
VELOCITY_MAX_LOOKBACK_HOURS = 72

_WIN_VALUES = ", ".join(
    f"('{name}', {days if days is not None else 'NULL::int'})" for name, days in WINDOWS.items()
)
_IN_WINDOW = "(w.days IS NULL OR {p}.published_at > {t} - make_interval(days => w.days))"


def _mean_pivot() -> str:
    return ",\n".join(
        f"max(CASE WHEN n >= :min_mean THEN views END) FILTER (WHERE name = '{w}') AS v_{w}"
        for w in WINDOWS
    )


def _median_pivot() -> str:
    return ",\n".join(
        f"max(CASE WHEN n >= :min_robust THEN median END) FILTER (WHERE name = '{w}') AS m_{w}"
        for w in WINDOWS
    )


def _values() -> str:
    means = [f"CASE WHEN piv.v_{w} > 0 THEN l.views / piv.v_{w} END AS score_{w}" for w in WINDOWS]
    medians = [
        f"CASE WHEN mp.m_{w} > 0 THEN l.views / mp.m_{w} END AS mscore_{w}" for w in WINDOWS
    ]
    return ",\n           ".join(means + medians)


# Every column the recomputation writes.
SCORE_COLS = (
    *(f"score_{w}" for w in WINDOWS),
    *(f"mscore_{w}" for w in WINDOWS),
    "age_score",
    "velocity",
    "baselines",
    "owner_followers",
)


def _recompute_sql(hot: bool) -> str:
    return f"""
WITH batch AS (
    SELECT DISTINCT ON (profile_id) profile_id, t
    FROM unnest(CAST(:ids AS text[]), CAST(:ts AS timestamptz[])) AS b(profile_id, t)
    ORDER BY profile_id, t DESC
),
win(name, days) AS (VALUES {_WIN_VALUES}),
stage AS MATERIALIZED (
    SELECT * FROM unnest({arrays(POST_COLS, "s_")}, CAST(:s_is_new AS bool[]))
        AS s({", ".join(n for n, _ in POST_COLS)}, is_new)
),
-- The crawled profiles' live posts as they are once this crawl is written: the stored ones
-- it did not list, and the staged ones (existing posts carry their stored publication time).
current AS (
    SELECT p.id, p.profile_id, p.platform, p.content_type, p.views, p.likes,
           p.engagement_rate, p.published_at
    FROM batch b JOIN posts p ON p.profile_id = b.profile_id
    WHERE p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM stage s WHERE s.id = p.id)
    UNION ALL
    SELECT id, profile_id, platform, content_type, views, likes, engagement_rate, published_at
    FROM stage
),
live AS MATERIALIZED (
    SELECT p.id, p.profile_id, p.views, p.likes, p.engagement_rate, p.published_at, b.t,
           sors_format_group(p.platform, p.content_type) AS fmt,
           p.published_at <= b.t - make_interval(secs => :min_age) AS mature,
           extract(epoch FROM b.t - p.published_at)::float8 AS age
    FROM batch b JOIN current p ON p.profile_id = b.profile_id
),
agg AS (
    SELECT b.profile_id, w.name,
           count(l.views) FILTER (WHERE l.mature) AS n,
           count(l.id) FILTER (WHERE NOT l.mature) AS young,
           (avg(l.views) FILTER (WHERE l.mature))::float8 AS views,
           (avg(l.likes) FILTER (WHERE l.mature))::float8 AS likes,
           (avg(l.engagement_rate) FILTER (WHERE l.mature))::float8 AS er
    FROM batch b CROSS JOIN win w
    LEFT JOIN live l
      ON l.profile_id = b.profile_id AND l.published_at <= b.t
     AND {_IN_WINDOW.format(p="l", t="b.t")}
    GROUP BY b.profile_id, w.name
),
piv AS (
    SELECT profile_id,
           {_mean_pivot()},
           jsonb_object_agg(name, jsonb_build_object(
               'views', CASE WHEN n >= :min_mean THEN views END,
               'likes', CASE WHEN n >= :min_mean THEN likes END,
               'engagement_rate', CASE WHEN n >= :min_mean THEN er END,
               'post_count', n, 'young_post_count', young)) AS avgs
    FROM agg GROUP BY profile_id
),
staged_n AS (SELECT profile_id, count(*) AS n FROM stage GROUP BY profile_id),
profs AS (
    UPDATE profiles pr
       SET averages = piv.avgs,
           tracked_post_count =
               (SELECT count(*) FROM posts c WHERE c.profile_id = piv.profile_id
                   AND NOT EXISTS (SELECT 1 FROM stage s WHERE s.id = c.id))
             + coalesce(sn.n, 0)
      FROM piv LEFT JOIN staged_n sn ON sn.profile_id = piv.profile_id
     WHERE pr.id = piv.profile_id
    RETURNING pr.id, pr.follower_count
),
members AS (
    SELECT l.profile_id, w.name, l.fmt, l.id, l.views::float8 AS v,
           row_number() OVER (PARTITION BY l.profile_id, w.name, l.fmt
                              ORDER BY l.views, l.id)::int AS r
    FROM live l CROSS JOIN win w
    WHERE l.mature AND l.views IS NOT NULL AND {_IN_WINDOW.format(p="l", t="l.t")}
),
sorted AS (
    SELECT profile_id, name, fmt, array_agg(v ORDER BY r) AS arr
    FROM members GROUP BY profile_id, name, fmt
),
med AS (
    SELECT l.id, w.name,
           sors_median_without(s.arr, m.r) AS median,
           coalesce(cardinality(s.arr), 0) - (m.r IS NOT NULL)::int AS n
    FROM live l CROSS JOIN win w
    LEFT JOIN sorted s ON s.profile_id = l.profile_id AND s.name = w.name AND s.fmt = l.fmt
    LEFT JOIN members m ON m.id = l.id AND m.name = w.name
),
medpiv AS (
    SELECT id,
           {_median_pivot()},
           jsonb_object_agg(name, jsonb_build_object(
               'views', CASE WHEN n >= :min_robust THEN median END, 'post_count', n)) AS med
    FROM med GROUP BY id
),
segs AS (
    SELECT * FROM (
        SELECT l.id AS post_id, l.profile_id, l.fmt,
               extract(epoch FROM s.crawled_at - l.published_at)::float8 AS a_hi,
               s.views::float8 AS v_hi,
               lag(extract(epoch FROM s.crawled_at - l.published_at)::float8) OVER sw AS a_lo,
               lag(s.views::float8) OVER sw AS v_lo
        FROM live l JOIN post_stats s ON s.post_id = l.id AND s.crawled_at <= l.t
        WINDOW sw AS (PARTITION BY s.post_id ORDER BY s.crawled_at)
    ) x
    WHERE a_lo IS NOT NULL AND v_lo IS NOT NULL AND v_hi IS NOT NULL
),
agematch AS (
    SELECT l.id,
           percentile_cont(0.5) WITHIN GROUP (
               ORDER BY g.v_lo + (g.v_hi - g.v_lo) * (l.age - g.a_lo) / (g.a_hi - g.a_lo)
           ) AS expected,
           count(*) AS n
    FROM live l
    JOIN segs g ON g.profile_id = l.profile_id AND g.fmt = l.fmt AND g.post_id <> l.id
               AND g.a_lo < l.age AND l.age <= g.a_hi
    GROUP BY l.id
),
vel AS (
    SELECT l.id,
           CASE
             WHEN l.views IS NULL THEN NULL
             WHEN l.published_at > l.t - interval '24 hours' THEN
               CASE WHEN l.age >= :vel_min_age * 3600.0 THEN l.views / (l.age / 3600.0) END
             WHEN lo.crawled_at = l.t - interval '24 hours' THEN (l.views - lo.views) / 24.0
             WHEN hi.crawled_at > lo.crawled_at THEN
               (l.views - (lo.views + (hi.views - lo.views)
                  * extract(epoch FROM (l.t - interval '24 hours') - lo.crawled_at)
                  / extract(epoch FROM hi.crawled_at - lo.crawled_at))) / 24.0
           END AS velocity
    FROM live l
    LEFT JOIN LATERAL (
        SELECT s.crawled_at, s.views::float8 AS views FROM post_stats s
        WHERE s.post_id = l.id AND s.views IS NOT NULL
          AND s.crawled_at <= l.t - interval '24 hours'
          AND s.crawled_at >= l.t - make_interval(hours => :vel_lookback)
        ORDER BY s.crawled_at DESC LIMIT 1
    ) lo ON l.published_at <= l.t - interval '24 hours'
    LEFT JOIN LATERAL (
        SELECT s.crawled_at, s.views::float8 AS views FROM post_stats s
        WHERE s.post_id = l.id AND s.views IS NOT NULL
          AND s.crawled_at > l.t - interval '24 hours' AND s.crawled_at <= l.t
        ORDER BY s.crawled_at LIMIT 1
    ) hi ON lo.crawled_at IS NOT NULL
),
scored AS (
    SELECT l.id, {_values()},
           CASE WHEN am.n >= :min_robust AND am.expected > 0
                THEN l.views / am.expected END AS age_score,
           vel.velocity,
           jsonb_build_object(
               'median', mp.med,
               'age', jsonb_build_object(
                   'expected_views', CASE WHEN am.n >= :min_robust THEN am.expected END,
                   'post_count', coalesce(am.n, 0),
                   'age_hours', round((l.age / 3600.0)::numeric, 2))) AS baselines,
           profs.follower_count AS owner_followers
    FROM live l
    JOIN piv ON piv.profile_id = l.profile_id
    JOIN profs ON profs.id = l.profile_id
    JOIN medpiv mp ON mp.id = l.id
    JOIN vel ON vel.id = l.id
    LEFT JOIN agematch am ON am.id = l.id
),
-- Each post is written once per crawl, with its crawled values and its scores together,
-- and only when something changed (a post the crawl did not list: when a score moved).
listed AS (
    UPDATE posts p
       SET {", ".join(f"{c} = s.{c}" for c in POST_UPDATED)},
           {", ".join(f"{c} = v.{c}" for c in SCORE_COLS)}
      FROM stage s JOIN scored v ON v.id = s.id
     WHERE p.id = s.id AND NOT s.is_new
       AND ({", ".join(f"p.{c}" for c in (*POST_UPDATED, *SCORE_COLS))})
           IS DISTINCT FROM
           ({", ".join(f"s.{c}" for c in POST_UPDATED)}, {", ".join(f"v.{c}" for c in SCORE_COLS)})
),
unlisted AS (
    UPDATE posts p
       SET {", ".join(f"{c} = v.{c}" for c in SCORE_COLS)}
      FROM scored v
     WHERE p.id = v.id AND NOT EXISTS (SELECT 1 FROM stage s WHERE s.id = v.id)
       AND ({", ".join(f"p.{c}" for c in SCORE_COLS)})
           IS DISTINCT FROM ({", ".join(f"v.{c}" for c in SCORE_COLS)})
){_HOT if hot else ""}
INSERT INTO posts ({", ".join(n for n, _ in POST_COLS)}, {", ".join(SCORE_COLS)})
SELECT {", ".join(f"s.{n}" for n, _ in POST_COLS)}, {", ".join(f"v.{c}" for c in SCORE_COLS)}
  FROM stage s JOIN scored v ON v.id = s.id
 WHERE s.is_new
ON CONFLICT (platform, platform_post_id) DO NOTHING
RETURNING id
"""


# Where search by meaning exists: a post's vector joins the hot vectors when its score
# reaches HOT_SCORE, and leaves when it falls below (catalog.embeddings).
_HOT = f""",
hot_in AS (
    INSERT INTO post_embeddings_hot (post_id, model, embedding)
    SELECT e.post_id, e.model, e.embedding
      FROM scored p JOIN post_embeddings e ON e.post_id = p.id
     WHERE {HOT_POSTS}
    ON CONFLICT (post_id) DO NOTHING
),
hot_out AS (
    DELETE FROM post_embeddings_hot h USING scored p
     WHERE h.post_id = p.id AND NOT coalesce({HOT_POSTS}, false)
)"""
_RECOMPUTE = {hot: binary_sql(text(_recompute_sql(hot))) for hot in (False, True)}


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
            **columns(rows, POST_COLS, "s_"),
            "s_is_new": [r["is_new"] for r in rows],
        },
    )
    return [r[0] for r in inserted]
