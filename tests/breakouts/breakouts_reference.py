"""The breakouts statement as it was before migration 0014: every idea extracted from the
captions with regular expressions at request time. Kept as the reference the stored-ideas
query (sors/breakouts/repository.py) must agree with (test_breakouts_ideas.py).

One correction: a post counts once per idea (DISTINCT below). The old statement only
deduplicated through the UNION of several kinds, so asking for one kind counted a caption
that repeats a hashtag or phrase twice in `postCount` and the median.
"""

from __future__ import annotations

import importlib
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.breakouts.repository import BreakoutQuery, params_of
from sors.catalog.records.repository import score_column

# The same stopwords as the extraction rules of migration 0014 (one list).
STOPWORDS = importlib.import_module("sors.migrations.versions.0014_post_ideas").STOPWORDS


_IDEAS = {
    "hashtag": """
        SELECT c.id, 'hashtag' AS kind, m[1] AS idea
        FROM cand c, regexp_matches(lower(c.caption), '#([[:alnum:]_]{2,})', 'g') AS m""",
    "format": """
        SELECT c.id, 'format', c.platform || ':' || c.content_type FROM cand c""",
    "sound": """
        SELECT c.id, 'sound', lower(c.track) FROM cand c WHERE coalesce(c.track, '') <> ''""",
    # Two neighbouring words of the caption (hashtags, mentions and links left out).
    "phrase": """
        SELECT c.id, 'phrase', w.words[i] || ' ' || w.words[i + 1]
        FROM cand c
        CROSS JOIN LATERAL (
            SELECT regexp_split_to_array(
                lower(sors_unaccent(regexp_replace(coalesce(c.caption, ''),
                      '[#@][^[:space:]]+|https?://[^[:space:]]+', ' ', 'g'))),
                '[^[:alnum:]]+') AS words
        ) w
        CROSS JOIN LATERAL generate_series(1, cardinality(w.words) - 1) AS i
        WHERE length(w.words[i]) >= 3 AND length(w.words[i + 1]) >= 3
          AND NOT (w.words[i] = ANY(CAST(:stop AS text[])))
          AND NOT (w.words[i + 1] = ANY(CAST(:stop AS text[])))
          AND w.words[i] !~ '^[0-9]+$' AND w.words[i + 1] !~ '^[0-9]+$'""",
}


def _statement(q: BreakoutQuery) -> str:
    score = score_column(q.score_window, q.score_method).name
    conds = [f"p.{score} >= :min_score", "p.deleted_at IS NULL"]
    if q.since is not None:
        conds.append("p.published_at >= :since")
    if q.platforms:
        conds.append("p.platform = ANY(CAST(:platforms AS text[]))")
    if q.category_ids is not None:
        conds.append(
            "EXISTS (SELECT 1 FROM profile_categories f WHERE f.profile_id = p.profile_id "
            "AND f.category_id = ANY(CAST(:cats AS text[])))"
        )
        category = "CAST(:category_label AS text)"
    else:
        # The creator's main niche, at its top level.
        # '' for none, so groups join on plain equality; the answer says null.
        category = (
            "coalesce((SELECT split_part(g.category_id, '.', 1) FROM profile_categories g "
            "WHERE g.profile_id = p.profile_id ORDER BY g.rank, g.category_id LIMIT 1), '')"
        )
    ideas = "\n        UNION\n".join(_IDEAS[k] for k in q.kinds)
    return f"""
WITH cand AS MATERIALIZED (
    SELECT p.id, p.profile_id, p.platform, p.content_type, p.caption, p.published_at,
           p.extra ->> 'track' AS track, p.{score} AS score, {category} AS category_id
    FROM posts p JOIN profiles pr ON pr.id = p.profile_id AND pr.is_active
    WHERE {" AND ".join(conds)}
),
ideas(id, kind, idea) AS (SELECT DISTINCT * FROM ({ideas}) AS u
),
hits AS MATERIALIZED (
    SELECT i.kind, i.idea, c.category_id, c.profile_id, c.id, c.score, c.published_at
    FROM ideas i JOIN cand c ON c.id = i.id
),
grouped AS (
    SELECT kind, idea, category_id,
           count(DISTINCT profile_id) AS creators, count(*) AS posts,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY score) AS median_score,
           (array_agg(id ORDER BY published_at, id))[1] AS first_id,
           (array_agg(id ORDER BY published_at DESC, id))[1] AS latest_id
    FROM hits
    GROUP BY kind, idea, category_id
    HAVING count(DISTINCT profile_id) >= :min_creators
    ORDER BY creators DESC, median_score DESC, kind, idea, category_id
    LIMIT :limit
),
best AS (
    SELECT DISTINCT ON (h.kind, h.idea, h.category_id, h.profile_id)
           h.kind, h.idea, h.category_id, h.id, h.score
    FROM hits h JOIN grouped g USING (kind, idea, category_id)
    ORDER BY h.kind, h.idea, h.category_id, h.profile_id, h.score DESC, h.id
),
evidence AS (
    SELECT kind, idea, category_id, array_agg(id ORDER BY score DESC, id) AS ids
    FROM best GROUP BY kind, idea, category_id
)
SELECT g.kind, g.idea, nullif(g.category_id, '') AS category_id, g.creators, g.posts,
       g.median_score, g.first_id, g.latest_id, e.ids AS evidence
FROM grouped g JOIN evidence e USING (kind, idea, category_id)
ORDER BY g.creators DESC, g.median_score DESC, g.kind, g.idea, g.category_id
"""


async def reference_breakouts(session: AsyncSession, q: BreakoutQuery) -> list[dict[str, Any]]:
    params = params_of(q)  # the filters' values as the service's statement takes them
    if "phrase" in q.kinds:
        params["stop"] = STOPWORDS
    # The planner's row estimates for the idea rows are far too high, which would make it
    # JIT-compile this small query: seconds of compilation for ~100 ms of work.
    await session.execute(text("SET LOCAL jit = off"))
    result = await session.execute(text(_statement(q)), params)
    return [dict(r._mapping) for r in result.all()]
