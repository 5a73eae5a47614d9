"""webhook_endpoints.format: standard, slack or discord bodies

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-25 22:10:00

A webhook endpoint can ask for its events as a Slack or Discord incoming-webhook message
instead of the Standard Webhooks envelope. One column with a constant default (no table
rewrite) and a check on the known formats.
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("webhook_endpoints", sa.Column(
        "format", sa.String(length=16), server_default=sa.text("'standard'"), nullable=False,
    ))
    op.create_check_constraint(
        op.f("ck_webhook_endpoints_format_known"), "webhook_endpoints",
        "format IN ('standard','slack','discord')",
    )


def downgrade() -> None:
    op.drop_constraint(op.f("ck_webhook_endpoints_format_known"), "webhook_endpoints",
                       type_="check")
    op.drop_column("webhook_endpoints", "format")
