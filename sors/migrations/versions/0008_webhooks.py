"""webhooks: endpoints, settings, the event outbox, deliveries and attempts; `webhook` jobs

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 04:50:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_OLD_TYPES = "type IN ('crawl','refresh','transcription','media','remix')"
_NEW_TYPES = "type IN ('crawl','refresh','transcription','media','remix','webhook')"


def _ts(name: str, nullable: bool = True) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.drop_constraint(op.f("ck_jobs_type_known"), "jobs", type_="check")
    op.create_check_constraint(op.f("ck_jobs_type_known"), "jobs", _NEW_TYPES)

    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("description", sa.String(500), nullable=True),
        sa.Column("events", postgresql.ARRAY(sa.String(64)), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column("disabled_reason", sa.String(32), nullable=True),
        _ts("disabled_at"),
        sa.Column("secret", sa.String(100), nullable=False),
        sa.Column("previous_secret", sa.String(100), nullable=True),
        _ts("previous_secret_expires_at"),
        _ts("created_at", False),
        _ts("updated_at", False),
        sa.CheckConstraint(
            "disabled_reason IS NULL OR disabled_reason = 'delivery_failures'",
            name=op.f("ck_webhook_endpoints_disabled_reason_known"),
        ),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_endpoints_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_endpoints")),
    )
    op.create_index("ix_webhook_endpoints_account", "webhook_endpoints", ["account_id", "id"])

    op.create_table(
        "webhook_settings",
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("credits_low_threshold", sa.BigInteger(), nullable=False),
        _ts("updated_at", False),
        sa.CheckConstraint("credits_low_threshold >= 0",
                           name=op.f("ck_webhook_settings_threshold_not_negative")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_settings_account_id_accounts")),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_webhook_settings")),
    )

    op.create_table(
        "webhook_events",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        _ts("occurred_at", False),
        sa.Column("data", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
                  nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_events_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_events")),
    )
    op.create_index("ix_webhook_events_account", "webhook_events", ["account_id", "id"])

    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("endpoint_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), server_default=sa.text("'pending'"), nullable=False),
        sa.Column("attempts", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("manual", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        _ts("next_attempt_at"),
        _ts("last_attempt_at"),
        sa.Column("response_status", sa.BigInteger(), nullable=True),
        sa.Column("duration_ms", sa.BigInteger(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        _ts("created_at", False),
        _ts("finished_at"),
        sa.CheckConstraint("status IN ('pending','succeeded','failed')",
                           name=op.f("ck_webhook_deliveries_status_known")),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_deliveries_endpoint_id_webhook_endpoints")),
        sa.ForeignKeyConstraint(["event_id"], ["webhook_events.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_deliveries_event_id_webhook_events")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index("ix_webhook_deliveries_due", "webhook_deliveries", ["next_attempt_at"],
                    postgresql_where=sa.text("status = 'pending'"))
    op.create_index("ix_webhook_deliveries_endpoint", "webhook_deliveries", ["endpoint_id", "id"])
    op.create_index("uq_webhook_deliveries_event_endpoint", "webhook_deliveries",
                    ["event_id", "endpoint_id"], unique=True)

    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("delivery_id", sa.String(64), nullable=False),
        _ts("attempted_at", False),
        sa.Column("response_status", sa.BigInteger(), nullable=True),
        sa.Column("duration_ms", sa.BigInteger(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["delivery_id"], ["webhook_deliveries.id"], ondelete="CASCADE",
                                name=op.f("fk_webhook_attempts_delivery_id_webhook_deliveries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
    )
    op.create_index("ix_webhook_attempts_delivery", "webhook_attempts", ["delivery_id", "id"])


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_events")
    op.drop_table("webhook_settings")
    op.drop_table("webhook_endpoints")
    op.execute("DELETE FROM jobs WHERE type = 'webhook'")
    op.drop_constraint(op.f("ck_jobs_type_known"), "jobs", type_="check")
    op.create_check_constraint(op.f("ck_jobs_type_known"), "jobs", _OLD_TYPES)
