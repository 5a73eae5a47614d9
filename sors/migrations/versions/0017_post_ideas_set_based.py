"""post_ideas extracted for a whole statement's posts at once

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-24 08:10:00

Migration 0014 extracts each new post's hashtags and caption phrases by calling two SQL
functions per post. Such a function cannot be inlined: every call starts and ends an
executor of its own, and phrases paired neighbouring words by subscript (words[i],
words[i + 1]). For a first crawl of 100 profiles (6,000 new posts) that was ~330 ms of a ~2 s
batch (docs/PERFORMANCE.md, "Ingest at a million posts"). Now one set-returning function,
`sors_posts_ideas(ids, captions)`, extracts them for all the statement's posts in one plan,
pairing neighbours by unnesting two slices of the word array side by side; the per-caption
functions are that function for one caption, so there is still one definition of an idea.
The rules are unchanged (tests/breakouts/test_breakouts_ideas.py compares the results with
0014's definitions), so the stored ideas stay as they are: no backfill.
"""

import importlib

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_0014 = importlib.import_module("sors.migrations.versions.0014_post_ideas")
_STOP = ",".join(_0014.STOPWORDS).replace("'", "''")

# The phrases of the captions `c` (id, caption), one row per caption that has any.
PHRASES_CTE = f"""  -- Two neighbouring words of the caption after accent folding and lower-casing, hashtags,
  -- mentions and links removed; both words 3+ characters, not numbers, not stop words.
  phr AS (
    SELECT c.id, array_agg(DISTINCT p.w || ' ' || p.nx ORDER BY p.w || ' ' || p.nx) AS phrases
    FROM c
    CROSS JOIN LATERAL (
      SELECT regexp_split_to_array(
               lower(sors_unaccent(regexp_replace(coalesce(c.caption, ''),
                     '[#@][^[:space:]]+|https?://[^[:space:]]+', ' ', 'g'))),
               '[^[:alnum:]]+') AS words
      OFFSET 0  -- split once per caption
    ) s
    CROSS JOIN LATERAL unnest(s.words[1:cardinality(s.words) - 1], s.words[2:]) AS p(w, nx)
    WHERE length(p.w) >= 3 AND length(p.nx) >= 3
      AND NOT (p.w = ANY('{{{_STOP}}}'::text[])) AND NOT (p.nx = ANY('{{{_STOP}}}'::text[]))
      AND p.w !~ '^[0-9]+$' AND p.nx !~ '^[0-9]+$'
    GROUP BY c.id
  )
"""

POSTS_IDEAS = f"""
CREATE OR REPLACE FUNCTION sors_posts_ideas(ids text[], captions text[])
RETURNS TABLE (post_id text, hashtags text[], phrases text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH c AS (SELECT u.id, u.caption FROM unnest(ids, captions) AS u(id, caption)),
  -- Lower-cased, '#' dropped, 2+ letters, digits or underscores; each once.
  tags AS (
    SELECT c.id, array_agg(DISTINCT m[1] ORDER BY m[1]) AS hashtags
    FROM c CROSS JOIN LATERAL regexp_matches(lower(c.caption), '#([[:alnum:]_]{{2,}})', 'g') AS m
    GROUP BY c.id
  ),
{PHRASES_CTE}  SELECT c.id, coalesce(tags.hashtags, '{{}}'), coalesce(phr.phrases, '{{}}')
  FROM c LEFT JOIN tags ON tags.id = c.id LEFT JOIN phr ON phr.id = c.id
$$
"""
HASHTAGS = """
CREATE OR REPLACE FUNCTION sors_caption_hashtags(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtags FROM sors_posts_ideas(ARRAY[''], ARRAY[caption])
$$
"""
PHRASES = """
CREATE OR REPLACE FUNCTION sors_caption_phrases(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT phrases FROM sors_posts_ideas(ARRAY[''], ARRAY[caption])
$$
"""


def _trigger_function(name: str, source: str) -> str:
    """A trigger function that stores the ideas `source` (rows of sors_posts_ideas) gives."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_ideas (post_id, hashtags, phrases)
  SELECT f.post_id, f.hashtags, f.phrases FROM {source}
  ON CONFLICT (post_id) DO UPDATE SET hashtags = EXCLUDED.hashtags, phrases = EXCLUDED.phrases;
  RETURN NULL;
END
$$
"""


# New posts: all of the statement's at once, from its transition table.
WRITE_NEW = _trigger_function(
    "sors_write_new_post_ideas",
    "(SELECT array_agg(id) AS ids, array_agg(caption) AS captions FROM new_posts) n "
    "CROSS JOIN LATERAL sors_posts_ideas(n.ids, n.captions) AS f",
)
# An edited caption: the row's.
WRITE_EDITED = _trigger_function(
    "sors_write_edited_post_ideas",
    "sors_posts_ideas(ARRAY[NEW.id::text], ARRAY[NEW.caption]) AS f",
)


def upgrade() -> None:
    for sql in (POSTS_IDEAS, HASHTAGS, PHRASES, WRITE_NEW, WRITE_EDITED):
        op.execute(sql)


def downgrade() -> None:
    for sql in (_0014.HASHTAGS, _0014.PHRASES, _0014.WRITE_NEW, _0014.WRITE_EDITED):
        op.execute(sql)
    op.execute("DROP FUNCTION IF EXISTS sors_posts_ideas(text[], text[])")
