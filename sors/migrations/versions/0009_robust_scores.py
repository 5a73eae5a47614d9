"""robust scores: median and age-matched baselines, velocity, and the SQL helpers they need

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 05:00:00

Beside the seed's mean scores (score_*), each post gets per window a score against the
median of the creator's other posts of the same format (mscore_*), one score against the
median of those posts at the same age (age_score), and its recent views per hour
(velocity). Each is a sort column with its own `(column DESC NULLS LAST, id)` index that
carries the search filters (as migration 0007 did for the others), so search by
`scoreMethod` and `sortBy: velocity` stays an index-only scan. What each baseline was
(median, expected value, post counts) is kept in `baselines` for output.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

WINDOWS = (
    "one_week",
    "two_weeks",
    "one_month",
    "three_months",
    "six_months",
    "one_year",
    "all_time",
)
FILTERS = "platform, content_type, published_at, views, owner_followers"
SORTS = [f"mscore_{w}" for w in WINDOWS] + ["age_score", "velocity"]

# The format a creator's post is compared within: YouTube shorts and Instagram reels are
# measured against the creator's other short videos, never against long videos or photo
# posts whose views live on another scale.
FORMAT_GROUP = """
CREATE OR REPLACE FUNCTION sors_format_group(platform text, content_type text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN content_type IN ('short', 'reel') THEN 'short'
    WHEN content_type IN ('image', 'carousel') THEN 'photo'
    WHEN platform = 'youtube' THEN 'long'
    ELSE 'all' END
$$
"""

# The median of a sorted array without its element at 1-based position `skip` (NULL: keep
# all). With the array sorted once per (creator, window, format), every post's "median of
# the others" costs a few array reads instead of a sort of its own.
MEDIAN_WITHOUT = """
CREATE OR REPLACE FUNCTION sors_median_without(arr float8[], skip int) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH s AS (
    SELECT coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int AS m
  ), pick AS (
    SELECT m, CASE WHEN m % 2 = 1 THEN (m + 1) / 2 ELSE m / 2 END AS k1,
              CASE WHEN m % 2 = 1 THEN (m + 1) / 2 ELSE m / 2 + 1 END AS k2
    FROM s
  )
  SELECT CASE WHEN m <= 0 THEN NULL ELSE
    (arr[CASE WHEN skip IS NOT NULL AND k1 >= skip THEN k1 + 1 ELSE k1 END]
     + arr[CASE WHEN skip IS NOT NULL AND k2 >= skip THEN k2 + 1 ELSE k2 END]) / 2.0
  END FROM pick
$$
"""


def upgrade() -> None:
    op.execute(FORMAT_GROUP)
    op.execute(MEDIAN_WITHOUT)
    for w in WINDOWS:
        op.add_column("posts", sa.Column(f"mscore_{w}", sa.Float(), nullable=True))
    op.add_column("posts", sa.Column("age_score", sa.Float(), nullable=True))
    op.add_column("posts", sa.Column("velocity", sa.Float(), nullable=True))
    op.add_column(
        "posts",
        sa.Column(
            "baselines",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
    )
    with op.get_context().autocommit_block():
        for col in SORTS:
            op.execute(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_posts_{col} ON posts "
                f"({col} DESC NULLS LAST, id) INCLUDE ({FILTERS})"
            )


def downgrade() -> None:
    for col in SORTS:
        op.execute(f"DROP INDEX IF EXISTS ix_posts_{col}")
    op.drop_column("posts", "baselines")
    op.drop_column("posts", "velocity")
    op.drop_column("posts", "age_score")
    for w in WINDOWS:
        op.drop_column("posts", f"mscore_{w}")
    op.execute("DROP FUNCTION IF EXISTS sors_median_without(float8[], int)")
    op.execute("DROP FUNCTION IF EXISTS sors_format_group(text, text)")
