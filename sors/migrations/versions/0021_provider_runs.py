"""provider_runs: each paid data-provider run and its cost; profiles.data_source;
accounts.is_operator

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-25 20:00:00

A crawl through a data provider (an Apify actor) is paid for in dollars by the operator,
whether it succeeds or not. Each run is kept with what the provider reported it cost, so the
catalog keeper stops at the operator's daily budget and `sors catalog status` can say what
was spent.

`profiles.data_source` says where a profile's last data came from (sim, web, api, apify, or
import): the keeper refreshes only profiles the running source can reach, so a demo never
"refreshes" an imported real creator from the simulated world. Adding a nullable column
without a default does not rewrite the table.

`accounts.is_operator` marks the self-hoster's account, the one shown the sources' status.
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("profiles", sa.Column("data_source", sa.String(length=16), nullable=True))
    op.add_column("accounts", sa.Column("is_operator", sa.Boolean(),
                                        server_default=sa.text("false"), nullable=False))
    op.create_table(
        "provider_runs",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("job_id", sa.String(length=64), nullable=True),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("handle", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("items", sa.BigInteger(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_provider_runs")),
    )
    op.create_index("ix_provider_runs_provider_at", "provider_runs", ["provider", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_provider_runs_provider_at", table_name="provider_runs")
    op.drop_table("provider_runs")
    op.drop_column("profiles", "data_source")
    op.drop_column("accounts", "is_operator")
