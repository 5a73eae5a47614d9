"""catalog keeper: freshness tiers, keeper crawls, discovery, shared platform pacing

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 04:40:00

Jobs gain `origin` (api | monitoring | catalog) and `target` (the "platform:handle" a crawl
fetches); the claim index puts the keeper's jobs after every user's. Profiles gain their
freshness tier and the time the keeper last saw them, backfilled from their last crawl.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_BACKFILL = """
UPDATE profiles pr
   SET catalog_seen_at = pr.last_crawled_at,
       catalog_tier = CASE
         WHEN NOT pr.is_active THEN
              CASE WHEN pr.renamed_to_id IS NULL THEN 'inactive' ELSE 'renamed' END
         WHEN EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                         AND p.published_at > pr.last_crawled_at - interval '7 days')
           OR EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                         AND p.published_at > pr.last_crawled_at - interval '30 days'
                         AND p.score_three_months >= 3) THEN 'hot'
         WHEN NOT EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                             AND p.published_at > pr.last_crawled_at - interval '90 days')
              THEN 'silent'
         ELSE 'active' END
 WHERE pr.last_crawled_at IS NOT NULL
"""


def upgrade() -> None:
    op.add_column("jobs", sa.Column("origin", sa.String(length=16), server_default=sa.text("'api'"),
                                    nullable=False))
    op.add_column("jobs", sa.Column("target", sa.String(length=120), nullable=True))
    op.execute("UPDATE jobs SET origin = 'monitoring' WHERE type = 'refresh'")
    op.execute("UPDATE jobs SET target = (payload->>'platform') || ':' || (payload->>'handle') "
               "WHERE type IN ('crawl', 'refresh')")
    op.create_check_constraint(op.f("ck_jobs_origin_known"), "jobs", "origin IN ('api','monitoring','catalog')")
    op.drop_index("ix_jobs_claim", table_name="jobs", postgresql_where=sa.text("status = 'pending'"))
    op.create_index("ix_jobs_claim", "jobs", [sa.text("(origin = 'catalog')"), "run_after", "id"],
                    unique=False, postgresql_where=sa.text("status = 'pending'"))
    op.create_index("ix_jobs_target", "jobs", ["target"], unique=False,
                    postgresql_where=sa.text("target IS NOT NULL"))

    op.add_column("profiles", sa.Column("catalog_tier", sa.String(length=16), nullable=True))
    op.add_column("profiles", sa.Column("catalog_seen_at", sa.DateTime(timezone=True),
                                        nullable=True))
    op.execute(_BACKFILL)
    op.create_index("ix_profiles_catalog_due", "profiles",
                    ["platform", "catalog_tier", "catalog_seen_at"], unique=False)

    op.create_table(
        "catalog_crawls",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("handle", sa.String(length=64), nullable=False),
        sa.Column("profile_id", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("job_id", name=op.f("pk_catalog_crawls")),
    )
    op.create_index("ix_catalog_crawls_platform_at", "catalog_crawls",
                    ["platform", "enqueued_at"], unique=False)
    op.create_table(
        "catalog_candidates",
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("handle", sa.String(length=64), nullable=False),
        sa.Column("discovered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("position", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("job_id", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("platform", "handle", name=op.f("pk_catalog_candidates")),
    )
    op.create_index("ix_catalog_candidates_waiting", "catalog_candidates",
                    ["platform", "discovered_at"], unique=False,
                    postgresql_where=sa.text("job_id IS NULL"))
    op.create_table(
        "catalog_discovery",
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("through_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("platform", name=op.f("pk_catalog_discovery")),
    )
    op.create_table(
        "platform_pacing",
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("next_slot", sa.DateTime(timezone=True), server_default=sa.text("now()"),
                  nullable=False),
        sa.Column("blocked_until", sa.DateTime(timezone=True), server_default=sa.text("now()"),
                  nullable=False),
        sa.Column("strikes", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_platform_pacing")),
    )


def downgrade() -> None:
    op.drop_table("platform_pacing")
    op.drop_table("catalog_discovery")
    op.drop_index("ix_catalog_candidates_waiting", table_name="catalog_candidates")
    op.drop_table("catalog_candidates")
    op.drop_index("ix_catalog_crawls_platform_at", table_name="catalog_crawls")
    op.drop_table("catalog_crawls")
    op.drop_index("ix_profiles_catalog_due", table_name="profiles")
    op.drop_column("profiles", "catalog_seen_at")
    op.drop_column("profiles", "catalog_tier")
    op.drop_index("ix_jobs_target", table_name="jobs")
    op.drop_index("ix_jobs_claim", table_name="jobs")
    op.create_index("ix_jobs_claim", "jobs", ["run_after"], unique=False,
                    postgresql_where=sa.text("status = 'pending'"))
    op.drop_constraint(op.f("ck_jobs_origin_known"), "jobs", type_="check")
    op.drop_column("jobs", "target")
    op.drop_column("jobs", "origin")
