"""The query's words in a search by meaning (`semantic`): how much each weighs, and the exact
phrases it quotes.

A word weighs its inverse document frequency in this catalog, ln((N + 1) / (df + 1)) for N
posts of which df hold it: relative to the catalog's size, so a word most posts of a small
catalog hold weighs as little as one most posts of a large catalog hold. On a large catalog
df and N come from PostgreSQL's statistics of `posts.search_vector` (its most common words
with their shares, and the table's row estimate): a word off that list is on fewer posts than
any on it, and counts as on half the least common one's share, as the planner itself
estimates. Below EXACT_BELOW posts, or before the table has statistics (a fresh catalog),
they are counted exactly: one index read per word, milliseconds at that size.

Words are those of the posts' search column: PostgreSQL's `simple` configuration after accent
folding, no stemming and no stop words ("for" is a word, weighing little where most posts say
it).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

EXACT_BELOW = 50_000

_WEIGHTS = text("""
WITH words AS (
    SELECT DISTINCT w
      FROM unnest(tsvector_to_array(to_tsvector('simple', sors_unaccent(:query)))) AS w
), stats AS (
    SELECT greatest(c.reltuples, 0)::float8 AS n,
           s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
      FROM pg_class c
      LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'posts'
                          AND s.attname = 'search_vector'
     WHERE c.oid = 'posts'::regclass
), basis AS (
    SELECT st.*, st.n >= :exact_below AND st.elems IS NOT NULL AS estimated FROM stats st
)
SELECT w.w,
       CASE WHEN b.estimated
            THEN b.n * coalesce((SELECT m.f FROM unnest(b.elems, b.freqs) AS m(e, f)
                                  WHERE m.e = w.w),
                                b.freqs[array_length(b.elems, 1) + 1] / 2)
            ELSE (SELECT count(*) FROM posts p
                   WHERE p.search_vector @@ plainto_tsquery('simple', w.w)) END AS df,
       CASE WHEN b.estimated THEN b.n ELSE (SELECT count(*) FROM posts) END AS n,
       b.estimated
  FROM words w CROSS JOIN basis b
 ORDER BY w.w
""")


@dataclass(frozen=True, slots=True)
class QueryWords:
    words: list[str]
    idfs: list[float]
    estimated: bool  # from the statistics (a large catalog), not counted

    @property
    def total(self) -> float:
        return sum(self.idfs)


def idf(df: float, n: float) -> float:
    return math.log((n + 1) / (max(df, 0.0) + 1))


async def weights(session: AsyncSession, query: str) -> QueryWords:
    """The query's words and what each weighs in this catalog (one round trip)."""
    rows = (await session.execute(_WEIGHTS, {"query": query,
                                             "exact_below": EXACT_BELOW})).all()
    return QueryWords([r.w for r in rows], [idf(float(r.df), float(r.n)) for r in rows],
                      bool(rows and rows[0].estimated))


# "…" or “…”: an exact phrase (its words in this order, next to each other).
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')


def phrases(query: str) -> list[str]:
    """The exact phrases a query quotes, in order."""
    found = (a or b for a, b in _QUOTED.findall(query))
    return [p.strip() for p in found if p.strip()]


def meaning_text(query: str) -> str:
    """What the model embeds: the query without its quote marks."""
    return " ".join(query.replace('"', " ").replace("“", " ").replace("”", " ").split())
