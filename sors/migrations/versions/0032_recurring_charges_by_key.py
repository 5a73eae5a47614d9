"""recurring charges by key: tracked_profiles.key_id and alerts.key_id, and the pauses of a
key's cap and of a revoked key

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-02 09:00:00

Tracking and alerts are free to create, and the scheduler charges their refreshes and
digests later. Each entry and alert now records the API key that saved it (its member
follows from the key), and those charges go through that key, so its daily spend cap
applies to them. A refresh the cap refuses pauses the entry (`spend_cap`, resumed the next
UTC day); an entry whose key was revoked pauses (`key_revoked`) instead of spending. Rows
saved before keep a null key and are charged as before, with no key.
"""

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

_OLD_REASONS = "('insufficient_credits','plan_limit')"
_NEW_REASONS = "('insufficient_credits','plan_limit','spend_cap','key_revoked')"


def _paused_known(reasons: str) -> None:
    op.drop_constraint(op.f("ck_tracked_profiles_paused_known"), "tracked_profiles", type_="check")
    op.create_check_constraint(
        op.f("ck_tracked_profiles_paused_known"),
        "tracked_profiles",
        f"paused_reason IS NULL OR paused_reason IN {reasons}",
    )


def upgrade() -> None:
    for table in ("tracked_profiles", "alerts"):
        op.add_column(table, sa.Column("key_id", sa.String(length=64), nullable=True))
        op.create_foreign_key(
            op.f(f"fk_{table}_key_id_api_keys"), table, "api_keys", ["key_id"], ["id"],
            ondelete="SET NULL",
        )
    _paused_known(_NEW_REASONS)


def downgrade() -> None:
    # Entries paused for a reason the old schema does not know are due again at once.
    op.execute(
        "UPDATE tracked_profiles SET paused_reason = NULL, paused_at = NULL, "
        "next_crawl_at = now() WHERE paused_reason IN ('spend_cap','key_revoked')"
    )
    _paused_known(_OLD_REASONS)
    for table in ("alerts", "tracked_profiles"):
        op.drop_constraint(op.f(f"fk_{table}_key_id_api_keys"), table, type_="foreignkey")
        op.drop_column(table, "key_id")
