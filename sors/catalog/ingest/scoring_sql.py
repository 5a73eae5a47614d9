"""The text of the one statement that scores a crawl (catalog.ingest.scoring says what it
computes and why). Built once per shape at import; its values are named parameters."""

from __future__ import annotations

from sors.catalog.ingest.bulk import POST_COLS, POST_UPDATED, arrays
from sors.catalog.models import WINDOWS
from sors.catalog.vectors.schema import HOT_POSTS

# Each window's bit in `posts.baseline_ok` (and in the records' reading of it).
WINDOW_BITS = {w: 1 << i for i, w in enumerate(WINDOWS)}

_WIN_VALUES = ", ".join(
    f"('{name}', {days if days is not None else 'NULL::int'}, {WINDOW_BITS[name]})"
    for name, days in WINDOWS.items()
)
_IN_WINDOW = "(w.days IS NULL OR {p}.published_at > {t} - make_interval(days => w.days))"


def _mean_pivot() -> str:
    return ",\n           ".join(
        f"max(CASE WHEN n >= :min_mean THEN views END) FILTER (WHERE name = '{w}') AS v_{w}"
        for w in WINDOWS
    )


def _median_pivot() -> str:
    return ",\n".join(
        f"max(CASE WHEN n >= :min_robust THEN median END) FILTER (WHERE name = '{w}') AS m_{w}"
        for w in WINDOWS
    )


def _values() -> str:
    means = [f"CASE WHEN ea.v_{w} > 0 THEN l.views / ea.v_{w} END AS score_{w}" for w in WINDOWS]
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
    "baseline_ok",
    "engagement_anomaly",
)

# A mean baseline as the records read it: the average views (null under :min_mean posts),
# the posts it stands on and the days of the window the creator's history covers.
_MEAN_ENTRY = """jsonb_build_object(
               'views', CASE WHEN n >= :min_mean THEN views END,
               'post_count', n, 'days_covered', round(cov::numeric, 2))"""


def recompute_sql(hot: bool) -> str:
    return f"""
WITH batch AS (
    SELECT DISTINCT ON (profile_id) profile_id, t
    FROM unnest(CAST(:ids AS text[]), CAST(:ts AS timestamptz[])) AS b(profile_id, t)
    ORDER BY profile_id, t DESC
),
win(name, days, bit) AS (VALUES {_WIN_VALUES}),
stage AS MATERIALIZED (
    SELECT * FROM unnest({arrays(POST_COLS, "s_")}, CAST(:s_is_new AS bool[]))
        AS s({", ".join(n for n, _ in POST_COLS)}, is_new)
),
-- The crawled profiles' live posts as they are once this crawl is written: the stored ones
-- it did not list, and the staged ones (existing posts carry their stored publication time).
current AS (
    SELECT p.id, p.profile_id, p.platform, p.content_type, p.views, p.likes,
           p.engagement_rate, p.published_at, p.approximations ->> 'views' AS vkind
    FROM batch b JOIN posts p ON p.profile_id = b.profile_id
    WHERE p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM stage s WHERE s.id = p.id)
    UNION ALL
    SELECT id, profile_id, platform, content_type, views, likes, engagement_rate, published_at,
           approximations ->> 'views'
    FROM stage
),
-- `ep`: the view definition the post's count follows (platforms.views): scores compare a
-- post only with posts of its own.
live AS MATERIALIZED (
    SELECT l.*, l.profile_id || ':' || l.ep AS pe FROM (
    SELECT p.id, p.profile_id, p.views, p.likes, p.engagement_rate, p.published_at, b.t,
           sors_format_group(p.platform, p.content_type) AS fmt,
           sors_view_epoch(p.platform, p.content_type, p.published_at, p.vkind) AS ep,
           p.published_at <= b.t - make_interval(secs => :min_age) AS mature,
           extract(epoch FROM b.t - p.published_at)::float8 AS age
    FROM batch b JOIN current p ON p.profile_id = b.profile_id) l
),
-- Where the creator's known history starts: their oldest stored post, of all and per
-- definition.
hist AS (
    SELECT profile_id, ep, GROUPING(ep) AS whole, min(published_at) AS since
    FROM live GROUP BY GROUPING SETS ((profile_id), (profile_id, ep))
),
-- Per window, of all the profile's posts (the profile's averages) and per definition (what
-- the scores divide by); `cov`: the days of the window that history covers.
agg AS (
    SELECT x.*, CASE WHEN h.since IS NULL THEN 0
                     ELSE least(extract(epoch FROM x.t - h.since) / 86400.0,
                                coalesce(x.days, 'Infinity'::float8)) END AS cov
    FROM (
        SELECT b.profile_id, b.t, l.ep, GROUPING(l.ep) AS whole, w.name, w.days, w.bit,
               count(l.views) FILTER (WHERE l.mature) AS n,
               count(l.id) FILTER (WHERE NOT l.mature) AS young,
               (avg(l.views) FILTER (WHERE l.mature))::float8 AS views,
               (avg(l.likes) FILTER (WHERE l.mature))::float8 AS likes,
               -- in numeric: exact, so the same whatever order the rows come in
               (avg(l.engagement_rate::numeric) FILTER (WHERE l.mature))::float8 AS er
        FROM batch b CROSS JOIN win w
        LEFT JOIN live l
          ON l.profile_id = b.profile_id AND l.published_at <= b.t
         AND {_IN_WINDOW.format(p="l", t="b.t")}
        GROUP BY GROUPING SETS ((b.profile_id, b.t, w.name, w.days, w.bit),
                                (b.profile_id, b.t, l.ep, w.name, w.days, w.bit))
    ) x
    LEFT JOIN hist h ON h.profile_id = x.profile_id AND h.whole = x.whole
                    AND (x.whole = 1 OR h.ep = x.ep)
    WHERE x.whole = 1 OR x.ep IS NOT NULL
),
-- `pe`: (profile, definition) as one key, which the planner estimates a join on well (on
-- two columns it guessed a few rows and nested its loops over thousands).
eagg AS (
    SELECT profile_id, ep, profile_id || ':' || ep AS pe,
           {_mean_pivot()},
           coalesce(sum(bit) FILTER (WHERE n >= :ok_posts
                                     AND (days IS NULL OR cov >= days * :ok_cover)), 0)
               AS ok_bits,
           jsonb_object_agg(name, {_MEAN_ENTRY}) AS obj
    FROM agg WHERE whole = 0
    GROUP BY profile_id, ep
),
-- A profile whose posts follow more than one definition keeps each one's baselines too.
epochs AS (
    SELECT profile_id, jsonb_build_object('epochs', jsonb_object_agg(ep::text, obj)) AS obj
    FROM eagg GROUP BY profile_id HAVING count(*) > 1
),
piv AS (
    SELECT a.profile_id, a.avgs || coalesce(e.obj, '{{}}'::jsonb) AS avgs
    FROM (
        SELECT profile_id, jsonb_object_agg(name, jsonb_build_object(
                   'views', CASE WHEN n >= :min_mean THEN views END,
                   'likes', CASE WHEN n >= :min_mean THEN likes END,
                   'engagement_rate', CASE WHEN n >= :min_mean THEN er END,
                   'post_count', n, 'young_post_count', young,
                   'days_covered', round(cov::numeric, 2))) AS avgs
        FROM agg WHERE whole = 1 GROUP BY profile_id
    ) a LEFT JOIN epochs e ON e.profile_id = a.profile_id
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
    SELECT l.profile_id, w.name, l.fmt, l.ep, l.id, l.views::float8 AS v,
           row_number() OVER (PARTITION BY l.profile_id, w.name, l.fmt, l.ep
                              ORDER BY l.views, l.id)::int AS r
    FROM live l CROSS JOIN win w
    WHERE l.mature AND l.views IS NOT NULL AND {_IN_WINDOW.format(p="l", t="l.t")}
),
sorted AS (
    SELECT profile_id, name, fmt, ep, array_agg(v ORDER BY r) AS arr
    FROM members GROUP BY profile_id, name, fmt, ep
),
med AS (
    SELECT l.id, w.name,
           sors_median_without(s.arr, m.r) AS median,
           coalesce(cardinality(s.arr), 0) - (m.r IS NOT NULL)::int AS n
    FROM live l CROSS JOIN win w
    LEFT JOIN sorted s ON s.profile_id = l.profile_id AND s.name = w.name AND s.fmt = l.fmt
                      AND s.ep = l.ep
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
        SELECT l.id AS post_id, l.profile_id, l.fmt, l.ep,
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
    JOIN segs g ON g.profile_id = l.profile_id AND g.fmt = l.fmt AND g.ep = l.ep
               AND g.post_id <> l.id AND g.a_lo < l.age AND l.age <= g.a_hi
    GROUP BY l.id
),
-- The creator's usual engagement per format and definition (catalog.ingest.scoring).
eng AS (
    SELECT profile_id, fmt, ep, count(*) AS n,
           percentile_cont(0.1) WITHIN GROUP (ORDER BY engagement_rate) AS p10,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY engagement_rate) AS p50,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY views) AS views
    FROM live WHERE mature AND engagement_rate IS NOT NULL
    GROUP BY profile_id, fmt, ep
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
flagged AS (
    SELECT l.id, l.mature AND g.n >= :eng_min_posts AND l.engagement_rate < g.p10
           AND l.engagement_rate < g.p50 * :eng_fraction AND l.views >= g.views AS anomaly,
           g.n, g.p10, g.p50, g.views AS usual_views
    FROM live l LEFT JOIN eng g ON g.profile_id = l.profile_id AND g.fmt = l.fmt AND g.ep = l.ep
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
                   'age_hours', round((l.age / 3600.0)::numeric, 2)))
           || CASE WHEN fl.anomaly THEN jsonb_build_object('engagement', jsonb_build_object(
                   'median', fl.p50, 'p10', fl.p10, 'post_count', fl.n,
                   'median_views', fl.usual_views)) ELSE '{{}}'::jsonb END AS baselines,
           profs.follower_count AS owner_followers,
           ea.ok_bits::smallint AS baseline_ok,
           coalesce(fl.anomaly, false) AS engagement_anomaly
    FROM live l
    JOIN eagg ea ON ea.pe = l.pe
    JOIN profs ON profs.id = l.profile_id
    JOIN medpiv mp ON mp.id = l.id
    JOIN vel ON vel.id = l.id
    JOIN flagged fl ON fl.id = l.id
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
