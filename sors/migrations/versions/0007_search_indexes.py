"""search indexes: the sort indexes of posts carry the filter columns

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22 05:25:00

Search pages and counts (catalog.repository) filter on platform, content type, publication
time, views, the owner's follower count and a window's score, and sort on one of eleven
`(column DESC NULLS LAST, id)` indexes. With those filter columns INCLUDEd in each sort
index, a page's ids and a capped count come from index-only scans: no table row is read to
be rejected. On a million posts this took the search mix's direct-SQL p95 from ~850 ms to
~55 ms (docs/PERFORMANCE.md).

Each index is rebuilt CONCURRENTLY under a temporary name and swapped in, so a live database
keeps an index for every sort (and accepts writes) throughout.
"""

from alembic import op

revision = "0007"
down_revision = "0006"
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
FILTERS = ("platform", "content_type", "published_at", "views", "owner_followers")


def _indexes() -> list[tuple[str, str, tuple[str, ...]]]:
    """(name, key, INCLUDE columns) of every sort index."""
    out = [(f"ix_posts_score_{w}", f"score_{w} DESC NULLS LAST, id", FILTERS) for w in WINDOWS]
    with_score = (*FILTERS, "score_three_months")
    out += [
        (
            "ix_posts_views",
            "views DESC NULLS LAST, id",
            tuple(c for c in with_score if c != "views"),
        ),
        ("ix_posts_likes", "likes DESC NULLS LAST, id", with_score),
        ("ix_posts_er", "engagement_rate DESC NULLS LAST, id", with_score),
        (
            "ix_posts_recent",
            "published_at DESC, id",
            tuple(c for c in with_score if c != "published_at"),
        ),
    ]
    return out


def _swap(name: str, key: str, include: tuple[str, ...]) -> None:
    tmp = f"{name}_new"
    extra = f" INCLUDE ({', '.join(include)})" if include else ""
    op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {tmp}")
    op.execute(f"CREATE INDEX CONCURRENTLY {tmp} ON posts ({key}){extra}")
    op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
    op.execute(f"ALTER INDEX {tmp} RENAME TO {name}")


def upgrade() -> None:
    with op.get_context().autocommit_block():
        for name, key, include in _indexes():
            _swap(name, key, include)


def downgrade() -> None:
    with op.get_context().autocommit_block():
        for name, key, _ in _indexes():
            _swap(name, key, ())
