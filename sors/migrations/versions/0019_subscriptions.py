"""Subscriptions: one per account, their checkouts, every paid invoice, the daily limit check;
tracking entries may pause for a plan limit; workspace members, the member of a key, the key
of a charge

Revision ID: 0019_subscriptions
Revises: 0018
Create Date: 2026-11-25 19:30:00

New tables, plus a wider check on `tracked_profiles.paused_reason` (PostgreSQL re-validates
it over the table's rows, a short lock) and two nullable columns without defaults
(`api_keys.member_id`, `ledger_entries.key_id`: catalog-only, no rewrite).
"""

import sqlalchemy as sa
from alembic import op

revision = "0019_subscriptions"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("provider_subscription_id", sa.String(length=255), nullable=True),
        sa.Column("provider_customer_id", sa.String(length=255), nullable=True),
        sa.Column("plan_id", sa.String(length=32), nullable=False),
        sa.Column("interval", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "cancel_at_period_end", sa.Boolean(), server_default=sa.text("false"), nullable=False
        ),
        sa.Column("current_period_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("current_period_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trial_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("period_credits", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("trial_used", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("provider_event_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trial_notice_sent_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("payment_notice_sent_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("canceled_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "interval IN ('month','year')", name=op.f("ck_subscriptions_interval_known")
        ),
        sa.CheckConstraint(
            "provider IN ('local','stripe')", name=op.f("ck_subscriptions_provider_known")
        ),
        sa.CheckConstraint(
            "status IN ('trialing','active','past_due','canceled')",
            name=op.f("ck_subscriptions_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_subscriptions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscriptions")),
        sa.UniqueConstraint("account_id", name=op.f("uq_subscriptions_account_id")),
        sa.UniqueConstraint(
            "provider_subscription_id", name=op.f("uq_subscriptions_provider_subscription_id")
        ),
    )
    op.create_index(
        "ix_subscriptions_due",
        "subscriptions",
        ["current_period_end"],
        unique=False,
        postgresql_where=sa.text("provider = 'local' AND status <> 'canceled'"),
    )
    op.create_table(
        "subscription_checkouts",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("plan_id", sa.String(length=32), nullable=False),
        sa.Column("interval", sa.String(length=8), nullable=False),
        sa.Column("trial_days", sa.BigInteger(), nullable=False),
        sa.Column("price_cents", sa.BigInteger(), nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("provider_session_id", sa.String(length=255), nullable=True),
        sa.Column("checkout_url", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), server_default=sa.text("'open'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "interval IN ('month','year')", name=op.f("ck_subscription_checkouts_interval_known")
        ),
        sa.CheckConstraint(
            "provider IN ('local','stripe')", name=op.f("ck_subscription_checkouts_provider_known")
        ),
        sa.CheckConstraint(
            "status IN ('open','completed','expired')",
            name=op.f("ck_subscription_checkouts_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_subscription_checkouts_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscription_checkouts")),
    )
    op.create_index(
        "ix_subscription_checkouts_account",
        "subscription_checkouts",
        ["account_id", "created_at"],
        unique=False,
    )
    op.create_table(
        "subscription_invoices",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("provider", sa.String(length=16), nullable=False),
        sa.Column("invoice_id", sa.String(length=255), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("subscription_id", sa.String(length=64), nullable=False),
        sa.Column("plan_id", sa.String(length=32), nullable=False),
        sa.Column("interval", sa.String(length=8), nullable=False),
        sa.Column("amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("credits", sa.BigInteger(), nullable=False),
        sa.Column("billing_reason", sa.String(length=64), nullable=True),
        sa.Column("period_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("period_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paid_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_subscription_invoices_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subscription_id"],
            ["subscriptions.id"],
            name=op.f("fk_subscription_invoices_subscription_id_subscriptions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscription_invoices")),
        sa.UniqueConstraint("provider", "invoice_id", name="uq_subscription_invoices_invoice"),
    )
    op.create_index(
        "ix_subscription_invoices_account",
        "subscription_invoices",
        ["account_id", "paid_at"],
        unique=False,
    )
    op.create_table(
        "plan_limit_checks",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("day", name=op.f("pk_plan_limit_checks")),
    )
    op.drop_constraint(op.f("ck_tracked_profiles_paused_known"), "tracked_profiles", type_="check")
    op.create_check_constraint(
        op.f("ck_tracked_profiles_paused_known"),
        "tracked_profiles",
        "paused_reason IS NULL OR paused_reason IN ('insufficient_credits','plan_limit')",
    )
    op.create_table(
        "members",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("invited_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "role IN ('owner','member','viewer')", name=op.f("ck_members_role_known")
        ),
        sa.CheckConstraint(
            "status IN ('invited','active','removed')", name=op.f("ck_members_status_known")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_members_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_members")),
    )
    op.create_index(
        "uq_members_account_email_live",
        "members",
        ["account_id", "email"],
        unique=True,
        postgresql_where=sa.text("status <> 'removed'"),
    )
    # Nullable columns without a default: catalog-only changes, no table rewrite.
    op.add_column("api_keys", sa.Column("member_id", sa.String(length=64), nullable=True))
    op.create_foreign_key(
        op.f("fk_api_keys_member_id_members"), "api_keys", "members", ["member_id"], ["id"]
    )
    op.add_column("ledger_entries", sa.Column("key_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("ledger_entries", "key_id")
    op.drop_constraint(op.f("fk_api_keys_member_id_members"), "api_keys", type_="foreignkey")
    op.drop_column("api_keys", "member_id")
    op.drop_index("uq_members_account_email_live", table_name="members")
    op.drop_table("members")
    op.execute(
        "UPDATE tracked_profiles SET paused_reason = NULL WHERE paused_reason = 'plan_limit'"
    )
    op.drop_constraint(op.f("ck_tracked_profiles_paused_known"), "tracked_profiles", type_="check")
    op.create_check_constraint(
        op.f("ck_tracked_profiles_paused_known"),
        "tracked_profiles",
        "paused_reason IS NULL OR paused_reason = 'insufficient_credits'",
    )
    op.drop_table("plan_limit_checks")
    op.drop_index("ix_subscription_invoices_account", table_name="subscription_invoices")
    op.drop_table("subscription_invoices")
    op.drop_index("ix_subscription_checkouts_account", table_name="subscription_checkouts")
    op.drop_table("subscription_checkouts")
    op.drop_index("ix_subscriptions_due", table_name="subscriptions")
    op.drop_table("subscriptions")
