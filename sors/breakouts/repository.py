"""The breakouts query: one statement from the outlier posts of the time frame to the ideas
that at least `min_creators` distinct creators of one category turned into outliers.

The posts come off the score's `(score DESC NULLS LAST, id, published_at)` index (`score >=
min_score`, the time frame checked in the index, migration 0018), so only the frame's
outliers are read from the heap, with their hashtags (a generated column of the post,
0018). Their phrases, when asked for, were extracted at ingest (post_ideas, migration 0014),
read in one index scan over the array of the outliers' ids; each creator's main niche is
stored too (profile_niches, migration 0016). A request unnests stored arrays and groups, it
runs no regular expression and sorts no categories; the groups that can make the answer get
an integer key for the sorted steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import SCORE_INDEX_FLOOR
from sors.catalog.records.repository import floored, score_column
from sors.kit.db import fetch_all, sql_for_shape


@dataclass(frozen=True, slots=True)
class BreakoutQuery:
    since: datetime | None
    min_score: float
    min_creators: int
    kinds: Sequence[str]
    score_window: str
    score_method: str
    limit: int
    platforms: Sequence[str] | None = None
    category_ids: Sequence[str] | None = None  # a category and its descendants
    category_label: str | None = None  # the requested category: one group
    evidence_limit: int = 10  # each breakout shows at most this many creators' best posts


# Lift is measured for the `POOL` groups with the most creators (bounded work whatever the
# frame); an idea the frame's outliers carry in at least `FILLER_NICHE_SHARE` of the niches
# (when they span at least `FILLER_MIN_NICHES`) is platform-wide filler (fyp, foryou, a
# format like tiktok:video) and left out, as is the catalog's boilerplate (idea_boilerplate).
POOL = 500
FILLER_MIN_NICHES = 4
FILLER_NICHE_SHARE = 0.75


# Where each kind of idea comes from, as (FROM clause over the candidates for the creator
# counts, the idea's columns there, the idea from them, which candidates have one, how a
# candidate `c` holds a top group's idea `t.idea`): hashtags from the post's own row
# (`posts.hashtags`, migration 0018), phrases from post_ideas (extracted at ingest, each once
# per post), formats and sounds from the post. Arrays are unnested in the select list (a
# ProjectSet, no per-row function scan); a format groups on its two columns and is spelled
# once per group.
_UNNEST = "(SELECT c.category_id, c.profile_id, unnest(c.{}) AS idea FROM cand c) c"
_IDEAS = {
    "hashtag": (
        _UNNEST.format("hashtags"), ["c.idea"], "x.c1", "true", "t.idea = ANY(c.hashtags)",
    ),
    "phrase": (
        _UNNEST.format("phrases"), ["c.idea"], "x.c1", "true", "t.idea = ANY(c.phrases)",
    ),
    "format": (
        "cand c", ["c.platform", "c.content_type"], "x.c1 || ':' || x.c2", "true",
        "t.idea = c.platform || ':' || c.content_type",
    ),
    "sound": (
        "cand c", ["lower(c.track)"], "x.c1", "coalesce(c.track, '') <> ''",
        "t.idea = lower(c.track)",
    ),
}


def _per_kind(q: BreakoutQuery, branch: str) -> str:
    """One branch per asked kind, UNION ALL: each groups without a `kind` key, and a format
    is never unnested."""
    return "\n    UNION ALL\n".join(
        branch.format(
            kind=k, source=s, cond=c, holds=h, idea=idea,
            cols=", ".join(f"{e} AS c{n}" for n, e in enumerate(cols, 1)),
            keys=", ".join(f"x.c{n}" for n in range(1, len(cols) + 1)),
        )
        for k in q.kinds
        for s, cols, idea, c, h in [_IDEAS[k]]
    )


# Byte-order keys: grouping and sorting compare them often, and equality is the same in any
# collation; orderings the answer shows use the database's collation again.
_SIZES = """
    SELECT '{kind}' COLLATE "C" AS kind, ({idea}) COLLATE "C" AS idea,
           x.category_id COLLATE "C" AS category_id, count(*) AS creators
    FROM (SELECT DISTINCT {cols}, c.category_id, c.profile_id FROM {source} WHERE {cond}) AS x
    GROUP BY {keys}, x.category_id
    HAVING count(*) >= :min_creators"""
# The posts of the top groups: the candidates of a top group's category that hold its idea
# (an array membership test, no unnesting), which costs less than writing and reading back
# every idea row (~80k for the three-month frame at 1M posts).
_TOP_HITS = """
    SELECT t.gid, c.profile_id COLLATE "C" AS profile_id, c.id, c.score, c.published_at
    FROM cand c
    JOIN pool t ON t.kind = '{kind}' AND t.category_id = c.category_id AND {holds}
    WHERE {cond}"""


# The ordinary posts of a top group's category holding its idea (the other side of lift).
# A post is one row of `ordc` (its creator's group is one per creator) and meets a group at
# most once, so count(*) counts posts: no DISTINCT, whose sort of every (group, post) pair
# spilled to disk (850k pairs for three months at 1M posts, 8.5M at 10M).
_ORD_HITS = """
    SELECT t.gid, count(*) AS n
    FROM ordc c
    JOIN pool t ON t.kind = '{kind}' AND t.category_id = c.category_id AND {holds}
    WHERE {cond}
    GROUP BY t.gid"""
# In how many niches the frame's outliers carry each idea (filler: nearly all of them).
_SPREAD = """
    SELECT '{kind}' COLLATE "C" AS kind, ({idea}) COLLATE "C" AS idea,
           count(DISTINCT x.category_id) AS niches
    FROM (SELECT DISTINCT {cols}, c.category_id FROM {source} WHERE {cond}) AS x
    WHERE x.category_id <> ''
    GROUP BY {keys}"""


def _scan(q: BreakoutQuery, score: str, conds: list[str], category: str, joins: list[str]) -> str:
    hashtags = "p.hashtags" if "hashtag" in q.kinds else "NULL::text[] AS hashtags"
    return f"""
    SELECT p.id, p.profile_id, p.platform, p.content_type, p.published_at,
           p.extra ->> 'track' AS track, p.{score} AS score, {category} AS category_id,
           {hashtags}
    FROM posts p {" ".join(joins)}
    WHERE {" AND ".join(conds)}
      -- ≡ joining the active profiles, without reading the profiles table (few are inactive)
      AND NOT EXISTS (SELECT 1 FROM profiles x WHERE x.id = p.profile_id AND NOT x.is_active)"""


def _with_phrases(name: str, rows: str) -> str:
    """`rows` as CTE `name`, each with its stored phrases: the rows of post_ideas in one index
    scan over an array of their ids (a plain join may hash the whole table; a probe per row
    costs more)."""
    return f"""{name}_rows AS MATERIALIZED ({rows}
),
{name} AS MATERIALIZED (
    SELECT o.*, i.phrases FROM {name}_rows o
    LEFT JOIN (SELECT i.post_id, i.phrases FROM post_ideas i
               WHERE i.post_id = ANY(ARRAY(SELECT id FROM {name}_rows))) i ON i.post_id = o.id
)"""


def _cte(q: BreakoutQuery, name: str, rows: str) -> str:
    if "phrase" in q.kinds:
        return _with_phrases(name, rows)
    return f"{name} AS MATERIALIZED ({rows}\n)"


def _statement(q: BreakoutQuery) -> str:
    col = score_column(q.score_window, q.score_method)
    score = col.name
    frame = ["p.deleted_at IS NULL"]
    if q.since is not None:
        # Checked in the score's index (a key column, migration 0018).
        frame.append("p.published_at >= :since")
    if q.platforms:
        frame.append("p.platform = ANY(CAST(:platforms AS text[]))")
    # A post flagged `engagement_anomaly` (views likely bought) is no idea to copy.
    conds = [f"p.{score} >= :min_score", "NOT p.engagement_anomaly", *frame]
    if floored(col) and q.min_score >= SCORE_INDEX_FLOOR:
        # The score's index holds the posts from the floor up (migration 0015): said as a
        # literal, a prepared statement's generic plan can use it too.
        conds.append(f"p.{score} >= {SCORE_INDEX_FLOOR}")
    # The creator's main niche, at its top level (stored: profile_niches, migration 0016);
    # '' for none, so groups join on plain equality (the answer says null).
    niche, niche_join = "coalesce(nc.category_id, '')", [
        "LEFT JOIN profile_niches nc ON nc.profile_id = p.profile_id"]
    if q.category_ids is not None:
        in_category = (
            "EXISTS (SELECT 1 FROM profile_categories f WHERE f.profile_id = p.profile_id "
            "AND f.category_id = ANY(CAST(:cats AS text[])))"
        )
        candidates = _cte(q, "cand", _scan(
            q, score, [*conds, in_category], "CAST(:category_label AS text)", []))
        # Filler is judged across every niche: the frame's outliers outside the category too.
        spread = _cte(q, "spread", _scan(q, score, conds, niche, niche_join))
    else:
        candidates = _cte(q, "cand", _scan(q, score, conds, niche, niche_join))
        spread = "spread AS (SELECT * FROM cand)"
    # The ordinary side: the frame's other posts of the creators who had an outlier there
    # (their posts by the (profile_id, published_at) index), in the creator's group.
    ordinary = f"""
    SELECT p.id, p.platform, p.content_type, p.extra ->> 'track' AS track, cr.category_id,
           {"p.hashtags" if "hashtag" in q.kinds else "NULL::text[] AS hashtags"}
    FROM posts p JOIN (SELECT DISTINCT profile_id, category_id FROM cand) cr
         ON cr.profile_id = p.profile_id
    WHERE p.profile_id = ANY(ARRAY(SELECT DISTINCT profile_id FROM cand))
      AND {" AND ".join(frame)} AND NOT coalesce(p.{score} >= :min_score, false)"""
    return f"""
WITH {candidates},
{spread},
{_cte(q, "ordc", ordinary)},
-- Creator counts per group (hash aggregates); the groups with at least min_creators make
-- the pool (the `pool` largest), whose lift is measured.
sizes AS MATERIALIZED ({_per_kind(q, _SIZES)}
),
niche_count AS (SELECT count(DISTINCT category_id) AS n FROM spread WHERE category_id <> ''),
filler AS MATERIALIZED (
    SELECT s.kind, s.idea FROM ({_per_kind(q, _SPREAD).replace("cand c", "spread c")}
    ) s, niche_count z
    WHERE z.n >= :filler_min_niches AND s.niches >= :filler_share * z.n
    UNION
    -- The catalog's boilerplate (catalog.usage.boilerplate): spread evenly over the niches
    -- of a platform or format, or added by the platform's own tools (photomode, carousel).
    SELECT b.kind COLLATE "C", b.idea COLLATE "C" FROM idea_boilerplate b WHERE b.kind <> '-'
),
pool AS MATERIALIZED (
    -- gid: a small key for each group, so the steps below sort and join on one integer
    SELECT row_number() OVER () AS gid, s.* FROM (
        SELECT * FROM sizes s
        WHERE NOT EXISTS (SELECT 1 FROM filler f WHERE f.kind = s.kind AND f.idea = s.idea)
        ORDER BY s.creators DESC, s.kind, s.idea, s.category_id
        LIMIT :pool) s
),
top_hits AS MATERIALIZED ({_per_kind(q, _TOP_HITS)}
),
ord_hits AS MATERIALIZED ({_per_kind(q, _ORD_HITS)}
),
totals AS (
    SELECT category_id, sum(outliers) AS outliers, sum(ordinary) AS ordinary FROM (
        SELECT category_id, count(*) AS outliers, 0 AS ordinary FROM cand GROUP BY category_id
        UNION ALL
        SELECT category_id, 0, count(*) FROM ordc GROUP BY category_id) u
    GROUP BY category_id
),
grouped AS MATERIALIZED (
    SELECT t.kind, t.idea, t.category_id, t.creators, a.*,
           a.posts::float8 / tot.outliers AS outlier_share,
           coalesce(o.n, 0)::float8 / nullif(tot.ordinary, 0) AS ordinary_share,
           -- add-one smoothing on the ordinary side: an idea no ordinary post carries has
           -- a finite lift, larger the more outliers carry it
           (a.posts::float8 / tot.outliers)
             / ((coalesce(o.n, 0) + 1)::float8 / (tot.ordinary + 1)) AS lift
    FROM (
        SELECT h.gid, count(*) AS posts,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY h.score) AS median_score,
               (array_agg(h.id ORDER BY h.published_at, h.id))[1] AS first_id,
               (array_agg(h.id ORDER BY h.published_at DESC, h.id))[1] AS latest_id
        FROM top_hits h
        GROUP BY h.gid
    ) a JOIN pool t USING (gid)
    JOIN totals tot ON tot.category_id = t.category_id
    LEFT JOIN ord_hits o ON o.gid = a.gid
    ORDER BY lift DESC, t.creators DESC, a.median_score DESC, t.kind COLLATE "default",
             t.idea COLLATE "default", t.category_id COLLATE "default"
    LIMIT :limit
),
best AS (
    SELECT DISTINCT ON (h.gid, h.profile_id) h.gid, h.id, h.score
    FROM top_hits h
    WHERE h.gid IN (SELECT gid FROM grouped)
    ORDER BY h.gid, h.profile_id, h.score DESC, h.id
),
evidence AS (
    SELECT gid, (array_agg(id ORDER BY score DESC, id))[1:CAST(:evidence_limit AS int)] AS ids
    FROM best GROUP BY gid
)
SELECT g.kind, g.idea, nullif(g.category_id, '') AS category_id, g.creators, g.posts,
       g.median_score, g.first_id, g.latest_id, e.ids AS evidence,
       g.outlier_share, g.ordinary_share, g.lift
FROM grouped g JOIN evidence e USING (gid)
ORDER BY g.lift DESC, g.creators DESC, g.median_score DESC, g.kind COLLATE "default",
         g.idea COLLATE "default", g.category_id COLLATE "default"
"""


def params_of(q: BreakoutQuery) -> dict[str, object]:
    """The statement's parameters (the ones a request's filters leave out are absent)."""
    params: dict[str, object] = {
        "min_score": q.min_score,
        "min_creators": q.min_creators,
        "limit": q.limit,
        "evidence_limit": q.evidence_limit,
        "pool": POOL,
        "filler_min_niches": FILLER_MIN_NICHES,
        "filler_share": FILLER_NICHE_SHARE,
    }
    if q.since is not None:
        params["since"] = q.since
    if q.platforms:
        params["platforms"] = list(q.platforms)
    if q.category_ids is not None:
        params["cats"] = list(q.category_ids)
        params["category_label"] = q.category_label
    return params


# For this statement only: the planner's row estimates for the idea rows are far too high,
# which would make it JIT-compile this small query (seconds of compilation for ~100 ms of
# work); the idea rows of a three-month frame (~60k at 1M posts) hash and sort in memory,
# not on disk; and no nested loop: the outliers' post_ideas rows (`= ANY(array)`) are
# estimated at 10, and a nested loop over thousands of them would compare every pair; and a
# plan for this request's values: the driver prepares a statement it has run five times,
# and the generic plan PostgreSQL then may pick for all time frames took the three-month
# request from ~340 to ~470 ms (docs/PERFORMANCE.md). Set for the transaction in one round
# trip that reads the values before, which the next round trip puts back: the evidence
# posts are read next in the same transaction, by primary key, which wants a nested loop
# (with none, ~20 ms instead of ~8 for 200 posts).
_SETTINGS = {
    "jit": "off",
    "work_mem": "64MB",
    "enable_nestloop": "off",
    "plan_cache_mode": "force_custom_plan",
}
_SET = "WITH before AS MATERIALIZED (SELECT {}) SELECT before.*, {} FROM before".format(
    ", ".join(f"current_setting('{k}') AS {k}" for k in _SETTINGS),
    ", ".join(f"set_config('{k}', '{v}', true)" for k, v in _SETTINGS.items()),
)
_RESTORE = "SELECT " + ", ".join(f"set_config('{k}', %({k})s, true)" for k in _SETTINGS)


def _sql(q: BreakoutQuery) -> str:
    """The statement for the request's shape, compiled once per shape (`kit.db`)."""
    shape = (
        "breakouts", tuple(q.kinds), q.score_window, q.score_method, q.since is not None,
        bool(q.platforms), q.category_ids is not None, q.min_score >= SCORE_INDEX_FLOOR,
    )
    return sql_for_shape(shape, lambda: text(_statement(q)))


async def breakouts(session: AsyncSession, q: BreakoutQuery) -> Sequence[Mapping[str, Any]]:
    """The answer's rows, run through the session's driver connection (no ORM step), with
    the statement's settings (`_SETTINGS`) for it alone."""
    [before] = await fetch_all(session, _SET, {})
    rows = await fetch_all(session, _sql(q), params_of(q))
    await fetch_all(session, _RESTORE, {k: before[k] for k in _SETTINGS})
    return rows
