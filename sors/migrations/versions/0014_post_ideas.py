"""post_ideas: each post's hashtags and caption phrases, extracted once, for breakouts

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23 07:30:00

Breakouts used to extract the ideas of every outlier of the time frame with regular
expressions at request time (~1.9 s at 1M posts, docs/PERFORMANCE.md). The extraction rules
move, unchanged, into two SQL functions; triggers on posts store their result per post
when a post is inserted or its caption changes, and a request only unnests stored arrays. Formats and sounds stay read from the post itself. The backfill below runs the same
functions over every existing post, so the functions are the one definition of an idea.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# Words that make a caption phrase without making an idea.
STOPWORDS = (
    "the and for you your with this that from are was were have has had not but all can "
    "our out get got its it's just like what when how why who into onto about more most "
    "than then them they their there here will would could should did does doing done "
    "one two new day today now very much many some any been being also only over under "
    "off too use using made make makes let lets see watch follow link bio part"
).split()

# Lower-cased, '#' dropped, 2+ letters, digits or underscores; each once.
HASHTAGS = """
CREATE OR REPLACE FUNCTION sors_caption_hashtags(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT m[1] ORDER BY m[1]), '{}')
  FROM regexp_matches(lower(caption), '#([[:alnum:]_]{2,})', 'g') AS m
$$
"""

# Two neighbouring words of the caption after accent folding and lower-casing, hashtags,
# mentions and links removed; both words 3+ characters, not numbers, not stop words.
PHRASES = f"""
CREATE OR REPLACE FUNCTION sors_caption_phrases(caption text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT w.words[i] || ' ' || w.words[i + 1]
                            ORDER BY w.words[i] || ' ' || w.words[i + 1]), '{{}}')
  FROM (
    SELECT regexp_split_to_array(
             lower(sors_unaccent(regexp_replace(coalesce(caption, ''),
                   '[#@][^[:space:]]+|https?://[^[:space:]]+', ' ', 'g'))),
             '[^[:alnum:]]+') AS words
    OFFSET 0  -- kept a subquery: pulled up, the split would run again at every words[i]
  ) w
  CROSS JOIN LATERAL generate_series(1, cardinality(w.words) - 1) AS i
  WHERE length(w.words[i]) >= 3 AND length(w.words[i + 1]) >= 3
    AND NOT (w.words[i] = ANY('{{{",".join(STOPWORDS).replace("'", "''")}}}'::text[]))
    AND NOT (w.words[i + 1] = ANY('{{{",".join(STOPWORDS).replace("'", "''")}}}'::text[]))
    AND w.words[i] !~ '^[0-9]+$' AND w.words[i + 1] !~ '^[0-9]+$'
$$
"""


# Ingest needs no code of its own. New posts (INSERT, ON CONFLICT's inserted rows, COPY):
# one set-based statement per writing statement, over its transition table, so the
# extraction functions are planned once per batch. An edited caption (rare): a row trigger
# whose WHEN clause makes an unchanged caption, the common re-crawl, cost one comparison.
WRITE_NEW = """
CREATE OR REPLACE FUNCTION sors_write_new_post_ideas() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_ideas (post_id, hashtags, phrases)
  SELECT id, sors_caption_hashtags(caption), sors_caption_phrases(caption) FROM new_posts
  ON CONFLICT (post_id) DO UPDATE
     SET hashtags = EXCLUDED.hashtags, phrases = EXCLUDED.phrases;
  RETURN NULL;
END
$$
"""
WRITE_EDITED = """
CREATE OR REPLACE FUNCTION sors_write_edited_post_ideas() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_ideas (post_id, hashtags, phrases)
  VALUES (NEW.id, sors_caption_hashtags(NEW.caption), sors_caption_phrases(NEW.caption))
  ON CONFLICT (post_id) DO UPDATE
     SET hashtags = EXCLUDED.hashtags, phrases = EXCLUDED.phrases;
  RETURN NULL;
END
$$
"""
TRIGGERS = (
    "CREATE TRIGGER trg_posts_ideas_new AFTER INSERT ON posts "
    "REFERENCING NEW TABLE AS new_posts "
    "FOR EACH STATEMENT EXECUTE FUNCTION sors_write_new_post_ideas()",
    "CREATE TRIGGER trg_posts_ideas_caption AFTER UPDATE OF caption ON posts "
    "FOR EACH ROW WHEN (OLD.caption IS DISTINCT FROM NEW.caption) "
    "EXECUTE FUNCTION sors_write_edited_post_ideas()",
)


def upgrade() -> None:
    # No post may be written between the backfill and the triggers.
    op.execute("LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE")
    op.execute(HASHTAGS)
    op.execute(PHRASES)
    op.create_table(
        "post_ideas",
        sa.Column("post_id", sa.String(64), nullable=False),
        sa.Column("hashtags", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column("phrases", postgresql.ARRAY(sa.Text()), nullable=False),
    )
    # One pass over the posts, then the key and the reference: building them once after
    # the rows are in is faster than maintaining them row by row.
    op.execute(
        "INSERT INTO post_ideas (post_id, hashtags, phrases) "
        "SELECT id, sors_caption_hashtags(caption), sors_caption_phrases(caption) FROM posts"
    )
    op.create_primary_key(op.f("pk_post_ideas"), "post_ideas", ["post_id"])
    op.create_foreign_key(
        op.f("fk_post_ideas_post_id_posts"), "post_ideas", "posts", ["post_id"], ["id"],
        ondelete="CASCADE",
    )
    op.execute(WRITE_NEW)
    op.execute(WRITE_EDITED)
    for trigger in TRIGGERS:
        op.execute(trigger)
    op.execute("ANALYZE post_ideas")
    op.create_index(
        "ix_profiles_inactive", "profiles", ["id"], postgresql_where=sa.text("NOT is_active")
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS trg_posts_ideas_caption ON posts")
    op.execute("DROP TRIGGER IF EXISTS trg_posts_ideas_new ON posts")
    op.execute("DROP FUNCTION IF EXISTS sors_write_edited_post_ideas()")
    op.execute("DROP FUNCTION IF EXISTS sors_write_new_post_ideas()")
    op.drop_index("ix_profiles_inactive", table_name="profiles")
    op.drop_table("post_ideas")
    op.execute("DROP FUNCTION IF EXISTS sors_caption_phrases(text)")
    op.execute("DROP FUNCTION IF EXISTS sors_caption_hashtags(text)")
