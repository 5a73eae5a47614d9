"""Score indexes hold the posts at or above their creator's baseline (score >= 1)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24 07:30:00

Every re-crawl writes each crawled post as a new row version, and every row version puts an
entry into each index of `posts` (scores are indexed, so no update is HOT). The fourteen
window score indexes (seven mean, seven median) held every post, NULL and below-baseline
scores included, though what a score index is for is finding outliers: a post at or above
its creator's baseline. Partial indexes (`WHERE score >= 1`) hold 22-60% of the posts, and
a crawl writes an entry only for those (docs/PERFORMANCE.md, "Ingest at a million posts").
A search that reaches below the baseline (a narrow filter, a deep page) reads that part in a
second step (catalog.repository.search_posts). The age-matched score and velocity keep full
indexes: the first is NULL for every post of a catalog without history, the second has no
baseline to stand at.
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

WINDOWS = ("one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year",
           "all_time")
COLUMNS = [f"{m}_{w}" for m in ("score", "mscore") for w in WINDOWS]
FILTERS = "platform, content_type, published_at, views, owner_followers"


def _rebuild(where: str) -> None:
    op.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for col in COLUMNS:
        op.execute(f"DROP INDEX IF EXISTS ix_posts_{col}")
        op.execute(
            f"CREATE INDEX ix_posts_{col} ON posts ({col} DESC NULLS LAST, id) "
            f"INCLUDE ({FILTERS}){where.format(col=col)}"
        )


def upgrade() -> None:
    _rebuild(" WHERE {col} >= 1")


def downgrade() -> None:
    _rebuild("")
