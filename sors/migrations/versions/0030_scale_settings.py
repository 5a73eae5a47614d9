"""A large catalog's settings: an index for profile-search counts by platform, and
autovacuum thresholds for `posts` that keep its index-only scans index-only

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-26 10:20:00

Measured at 10M posts (docs/PERFORMANCE.md, "Ten million posts"):

- A profile search filtered by platform and niche counts its matches (up to the result
  window) by joining the niche's creators with the platform's profiles. Without an index on
  (platform, id) the platform's side is a sequential scan of the wide `profiles` rows: the
  count took 130-145 ms at 10M posts (175,000 profiles) and 20 ms at 1M; with it, an
  index-only scan, 39-41 ms and 3.6 ms. Built in about a second at 175,000 profiles.
- Sorted pages and capped counts are index-only scans, which read the heap for every page
  not marked all-visible. A crawl rewrites its posts' rows, so their pages lose the mark
  until a vacuum; by default autovacuum comes when a fifth of the table has changed (2M rows
  at 10M posts), so after 300,000 crawled posts the pages they touched were still unmarked:
  a `sortBy: views` search of shorts took 129 ms instead of 22 ms. A vacuum (31 s at 10M)
  brought it back. So `posts` is vacuumed after 1% of it changed or was inserted, and
  analyzed after 2%.
"""

from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

POSTS_VACUUM = {
    "autovacuum_vacuum_scale_factor": "0.01",
    "autovacuum_vacuum_insert_scale_factor": "0.01",
    "autovacuum_analyze_scale_factor": "0.02",
}


def upgrade() -> None:
    op.create_index("ix_profiles_platform", "profiles", ["platform", "id"], unique=False)
    settings = ", ".join(f"{k} = {v}" for k, v in POSTS_VACUUM.items())
    op.execute(f"ALTER TABLE posts SET ({settings})")


def downgrade() -> None:
    op.execute(f"ALTER TABLE posts RESET ({', '.join(POSTS_VACUUM)})")
    op.drop_index("ix_profiles_platform", table_name="profiles")
