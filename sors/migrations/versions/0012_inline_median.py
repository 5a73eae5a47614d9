"""sors_median_without as one inlinable expression

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23 05:40:00

The first body (migration 0009) used a CTE, which PostgreSQL cannot inline: each call ran
as its own little plan, ~0.1 ms, seven calls per post at every crawl. A single SELECT of
one expression is inlined into the calling query. Same result: the median of the sorted
array without its element at 1-based position `skip` (with m elements left, the middle
ones are at (m + 1) / 2 and m / 2 + 1 in integer division, shifted past `skip`).
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

INLINE = """
CREATE OR REPLACE FUNCTION sors_median_without(arr float8[], skip int) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int <= 0 THEN NULL
    ELSE (
      arr[((coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int + 1) / 2)
          + (skip IS NOT NULL
             AND (coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int + 1) / 2 >= skip)::int]
      + arr[((coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int) / 2 + 1)
          + (skip IS NOT NULL
             AND (coalesce(cardinality(arr), 0) - (skip IS NOT NULL)::int) / 2 + 1 >= skip)::int]
    ) / 2.0
  END
$$
"""


def upgrade() -> None:
    op.execute(INLINE)


def downgrade() -> None:
    pass  # the same function: 0009's body gave the same results, only slower
