"""posts.baseline_ok, posts.engagement_anomaly, sors_view_epoch(): baseline quality,
engagement that does not fit, view-definition epochs

Revision ID: 0035
Revises: 0034
Create Date: 2026-11-28 15:00:00

`sors_view_epoch` states sors.platforms.views (which view definition a post's count
follows: YouTube counts a view from the first frame since 2025-03-31 for Shorts and
2026-08-24 for long-form videos and streams; a count given as Instagram's `video_views` or a
Short's `engaged_views` follows the older kind); the scores compare a post only with posts
of its own. `baseline_ok` holds a bit per window whose mean baseline is `ok` (enough posts,
enough of the window covered); `engagement_anomaly` flags a post whose engagement per view
sits far below its creator's usual. Both are written by the scoring statement at each crawl:
posts scored before this migration have them (null, false) until their profile's next crawl.
New columns, one with a constant default: no table rewrite.
"""

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

# The copy of sors.platforms.views.epoch_sql() as of this migration
# (tests/platforms/test_view_epochs.py checks that the two agree).
EPOCH_SQL = """
CREATE OR REPLACE FUNCTION sors_view_epoch(
    platform text, content_type text, published_at timestamptz, views_kind text
) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE WHEN views_kind IN ('video_views', 'engaged_views') THEN 1
    WHEN platform = 'youtube' AND content_type IN ('short')
         AND published_at < '2025-03-31 00:00:00+00'::timestamptz THEN 1
    WHEN platform = 'youtube' AND content_type IN ('video', 'live')
         AND published_at < '2026-08-24 00:00:00+00'::timestamptz THEN 1
    ELSE 0 END)::smallint
$$
"""


def upgrade() -> None:
    op.execute(EPOCH_SQL)
    op.add_column("posts", sa.Column("baseline_ok", sa.SmallInteger(), nullable=True))
    op.add_column("posts", sa.Column("engagement_anomaly", sa.Boolean(),
                                     server_default=sa.text("false"), nullable=False))


def downgrade() -> None:
    op.drop_column("posts", "engagement_anomaly")
    op.drop_column("posts", "baseline_ok")
    op.execute("DROP FUNCTION IF EXISTS sors_view_epoch(text, text, timestamptz, text)")
