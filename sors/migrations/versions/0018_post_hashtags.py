"""A post's hashtags on its own row; score indexes filter on the publication time

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-24 10:30:00

Breakouts read every outlier of the time frame (~17k posts for three months at 1M posts):
their rows from `posts`, then their hashtags from `post_ideas`, one index probe each (~55 ms
of the ~270 ms three-month request, docs/PERFORMANCE.md). Two changes take that work away:

- `posts.hashtags`, a stored generated column: `sors_caption_tags(caption)`, the hashtags in
  caption order (a repeated one repeats). It is an expression (one regular expression, no
  subquery), so it is inlined and computed with the row when a post is written; a
  re-crawl's UPDATE does not name `caption` and does not recompute it. The rule is 0014's
  (`#` then 2+ letters, digits or underscores, lower-cased); `sors_caption_hashtags` is now
  its distinct, sorted values, so it stays the one definition. `post_ideas` keeps the
  phrases only: its trigger no longer extracts hashtags.
- The fourteen window-score indexes take `published_at` as a key column after `id` (it was
  an INCLUDE column): the order is unchanged (ids are unique), and a time frame is now
  checked in the index, so a bitmap scan reads only the heap pages of the frame's outliers
  (about half of them for three months).

Adding a stored column rewrites `posts` and rebuilds its indexes: about 1-2 minutes at 1M
posts, with writes blocked (docs/OPERATIONS.md).
"""

import importlib

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_0014 = importlib.import_module("sors.migrations.versions.0014_post_ideas")
_0015 = importlib.import_module("sors.migrations.versions.0015_outlier_score_indexes")
_0017 = importlib.import_module("sors.migrations.versions.0017_post_ideas_set_based")

# Every '#' starts a hashtag when 2+ letters, digits or underscores follow it (the longest
# run), exactly the matches of 0014's '#([[:alnum:]_]{2,})': a tag cannot hold a '#', so the
# matches never overlap. One pass keeps each tag and a space, and drops the rest (the
# longest alternative wins at a '#'); the spaces split it.
TAGS = """
CREATE OR REPLACE FUNCTION sors_caption_tags(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_remove(string_to_array(
           regexp_replace(lower(caption), '[^#]+|#([[:alnum:]_]{2,})|#', '\\1 ', 'g'),
           ' '), ''), '{}')
$$
"""
HASHTAGS = """
CREATE OR REPLACE FUNCTION sors_caption_hashtags(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT t ORDER BY t), '{}') FROM unnest(sors_caption_tags(caption)) t
$$
"""

# The phrases of a statement's posts (0017's rule, unchanged), and the ideas of a set of
# captions: their distinct, sorted hashtags beside them.
POSTS_PHRASES = f"""
CREATE OR REPLACE FUNCTION sors_posts_phrases(ids text[], captions text[])
RETURNS TABLE (post_id text, phrases text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH c AS (SELECT u.id, u.caption FROM unnest(ids, captions) AS u(id, caption)),
{_0017.PHRASES_CTE}  SELECT c.id, coalesce(phr.phrases, '{{}}') FROM c LEFT JOIN phr ON phr.id = c.id
$$
"""
PHRASES = """
CREATE OR REPLACE FUNCTION sors_caption_phrases(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT phrases FROM sors_posts_phrases(ARRAY[''], ARRAY[caption])
$$
"""
POSTS_IDEAS = """
CREATE OR REPLACE FUNCTION sors_posts_ideas(ids text[], captions text[])
RETURNS TABLE (post_id text, hashtags text[], phrases text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT u.id, sors_caption_hashtags(u.caption), f.phrases
  FROM unnest(ids, captions) AS u(id, caption)
  JOIN sors_posts_phrases(ids, captions) AS f ON f.post_id = u.id
$$
"""


def _trigger_function(name: str, source: str) -> str:
    """A trigger function that stores the phrases `source` (rows of sors_posts_phrases)
    gives."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_ideas (post_id, phrases)
  SELECT f.post_id, f.phrases FROM {source}
  ON CONFLICT (post_id) DO UPDATE SET phrases = EXCLUDED.phrases;
  RETURN NULL;
END
$$
"""


WRITE_NEW = _trigger_function(
    "sors_write_new_post_ideas",
    "(SELECT array_agg(id) AS ids, array_agg(caption) AS captions FROM new_posts) n "
    "CROSS JOIN LATERAL sors_posts_phrases(n.ids, n.captions) AS f",
)
WRITE_EDITED = _trigger_function(
    "sors_write_edited_post_ideas",
    "sors_posts_phrases(ARRAY[NEW.id::text], ARRAY[NEW.caption]) AS f",
)

INDEX_KEYS = "{col} DESC NULLS LAST, id, published_at"
INDEX_INCLUDE = "platform, content_type, views, owner_followers"


def upgrade() -> None:
    op.execute("SET LOCAL maintenance_work_mem = '256MB'")
    # Dropped before the rewrite below, which rebuilds every index left on the table.
    for col in _0015.COLUMNS:
        op.execute(f"DROP INDEX IF EXISTS ix_posts_{col}")
    op.execute(TAGS)
    op.execute(HASHTAGS)
    op.execute(
        "ALTER TABLE posts ADD COLUMN hashtags text[] "
        "GENERATED ALWAYS AS (sors_caption_tags(caption)) STORED"
    )
    for col in _0015.COLUMNS:
        op.execute(
            f"CREATE INDEX ix_posts_{col} ON posts ({INDEX_KEYS.format(col=col)}) "
            f"INCLUDE ({INDEX_INCLUDE}) WHERE {col} >= 1"
        )
    for sql in (POSTS_PHRASES, PHRASES, POSTS_IDEAS, WRITE_NEW, WRITE_EDITED):
        op.execute(sql)
    op.execute("ALTER TABLE post_ideas DROP COLUMN hashtags")
    op.execute("ANALYZE posts")


def downgrade() -> None:
    op.execute("SET LOCAL maintenance_work_mem = '256MB'")
    op.execute("ALTER TABLE post_ideas ADD COLUMN hashtags text[]")
    op.execute(
        "UPDATE post_ideas i SET hashtags = sors_caption_hashtags(p.caption) "
        "FROM posts p WHERE p.id = i.post_id"
    )
    op.execute("ALTER TABLE post_ideas ALTER COLUMN hashtags SET NOT NULL")
    for sql in (_0017.POSTS_IDEAS, _0017.HASHTAGS, _0017.PHRASES, _0017.WRITE_NEW,
                _0017.WRITE_EDITED):
        op.execute(sql)
    op.execute("DROP FUNCTION IF EXISTS sors_posts_phrases(text[], text[])")
    for col in _0015.COLUMNS:
        op.execute(f"DROP INDEX IF EXISTS ix_posts_{col}")
    op.execute("ALTER TABLE posts DROP COLUMN hashtags")
    op.execute("DROP FUNCTION IF EXISTS sors_caption_tags(text)")
    for col in _0015.COLUMNS:
        op.execute(
            f"CREATE INDEX ix_posts_{col} ON posts ({col} DESC NULLS LAST, id) "
            f"INCLUDE ({_0015.FILTERS}) WHERE {col} >= 1"
        )
