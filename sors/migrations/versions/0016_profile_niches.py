"""profile_niches: each creator's main niche, kept by triggers on profile_categories

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-24 07:50:00

Breakouts group a creator's outliers under the creator's main niche: the top level of the
category with the lowest rank (ties: the lowest id). Working that out per request sorted the
categories of every creator with an outlier in the time frame (~24k rows, ~25 ms of the
three-month request at 1M posts, docs/PERFORMANCE.md). It changes only when a creator's
categories are written (once per crawl, per profile, never per post), so it is stored here:
statement triggers on profile_categories recompute it for the creators a statement touched,
from their categories after it. Posts and their writes are untouched.

"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

# The creators' niches from their categories as they are now: those with none lose theirs.
REFRESH = """
CREATE OR REPLACE FUNCTION sors_refresh_profile_niches(ids text[]) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM profile_niches n
   WHERE n.profile_id = ANY(ids)
     AND NOT EXISTS (SELECT 1 FROM profile_categories g WHERE g.profile_id = n.profile_id);
  INSERT INTO profile_niches (profile_id, category_id)
  SELECT DISTINCT ON (g.profile_id) g.profile_id, split_part(g.category_id, '.', 1)
    FROM profile_categories g
   WHERE g.profile_id = ANY(ids)
   ORDER BY g.profile_id, g.rank, g.category_id
  ON CONFLICT (profile_id) DO UPDATE SET category_id = EXCLUDED.category_id
   WHERE profile_niches.category_id IS DISTINCT FROM EXCLUDED.category_id;
$$
"""
# One trigger function per transition table it reads (a function can only name the tables
# its trigger declares).
ON_WRITE = {
    "new": "sors_refresh_profile_niches(ARRAY(SELECT DISTINCT profile_id FROM new_rows))",
    "old": "sors_refresh_profile_niches(ARRAY(SELECT DISTINCT profile_id FROM old_rows))",
    "both": "sors_refresh_profile_niches(ARRAY("
    "SELECT profile_id FROM old_rows UNION SELECT profile_id FROM new_rows))",
}
TRIGGERS = (
    ("insert", "AFTER INSERT", "REFERENCING NEW TABLE AS new_rows", "new"),
    ("delete", "AFTER DELETE", "REFERENCING OLD TABLE AS old_rows", "old"),
    ("update", "AFTER UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows", "both"),
)


TABLE = """
CREATE TABLE IF NOT EXISTS profile_niches (
    profile_id VARCHAR(64) NOT NULL,
    category_id VARCHAR(64) NOT NULL,
    CONSTRAINT pk_profile_niches PRIMARY KEY (profile_id),
    CONSTRAINT fk_profile_niches_profile_id_profiles FOREIGN KEY (profile_id)
        REFERENCES profiles (id) ON DELETE CASCADE
)
"""


def statements() -> list[str]:
    """The upgrade, in order; each can run again over a database that has it already."""
    out = [
        TABLE,
        # No category may be written between the backfill and the triggers.
        "LOCK TABLE profile_categories IN SHARE ROW EXCLUSIVE MODE",
        REFRESH,
    ]
    for name, body in ON_WRITE.items():
        out.append(
            f"CREATE OR REPLACE FUNCTION sors_profile_niches_{name}() RETURNS trigger "
            f"LANGUAGE plpgsql AS $$ BEGIN PERFORM {body}; RETURN NULL; END $$"
        )
    out.append(
        "CREATE OR REPLACE FUNCTION sors_profile_niches_truncate() RETURNS trigger "
        "LANGUAGE plpgsql AS $$ BEGIN DELETE FROM profile_niches; RETURN NULL; END $$"
    )
    for event, when, referencing, fn in (*TRIGGERS, ("truncate", "AFTER TRUNCATE", "", "truncate")):
        out += [
            f"DROP TRIGGER IF EXISTS trg_profile_categories_niche_{event} ON profile_categories",
            f"CREATE TRIGGER trg_profile_categories_niche_{event} {when} ON profile_categories "
            f"{referencing} FOR EACH STATEMENT EXECUTE FUNCTION sors_profile_niches_{fn}()",
        ]
    out += [
        "SELECT sors_refresh_profile_niches(ARRAY(SELECT id FROM profiles))",
        "ANALYZE profile_niches",
    ]
    return out


def upgrade() -> None:
    for sql in statements():
        op.execute(sql)


def downgrade() -> None:
    for event in ("insert", "delete", "update", "truncate"):
        op.execute(f"DROP TRIGGER IF EXISTS trg_profile_categories_niche_{event} ON profile_categories")
    for name in (*ON_WRITE, "truncate"):
        op.execute(f"DROP FUNCTION IF EXISTS sors_profile_niches_{name}()")
    op.drop_table("profile_niches")
    op.execute("DROP FUNCTION IF EXISTS sors_refresh_profile_niches(text[])")
