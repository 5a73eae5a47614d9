"""The index over all post vectors becomes IVFFlat, trained on the stored vectors; a
`vector_index` job type rebuilds it as they grow

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-26 08:00:00

HNSW over every vector missed a tenth of the true nearest posts for queries far from every
post, at any search depth (catalog.vector_index says why; docs/PERFORMANCE.md gives the
figures). Its replacement is an inverted-file index whose lists are learnt from the vectors,
so it is built here only where there are enough (TRAIN_AT of a model); elsewhere the
scheduler queues its build once there are. `embedding_backfill` records what each model's
index was built on. The subsets' HNSW indexes stay. Where pgvector is missing only the job
type is added. On a million vectors the build takes about 40 s.
"""

from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

TRAIN_AT = 10_000  # catalog.vector_index.TRAIN_AT at the time of this revision
TYPES_BEFORE = "'crawl','refresh','transcription','media','remix','webhook','analysis'"
TYPES_AFTER = TYPES_BEFORE + ",'vector_index'"


def _types(known: str) -> None:
    op.execute("ALTER TABLE jobs DROP CONSTRAINT IF EXISTS ck_jobs_type_known")
    op.execute(f"ALTER TABLE jobs ADD CONSTRAINT ck_jobs_type_known CHECK (type IN ({known}))")


def upgrade() -> None:
    _types(TYPES_AFTER)
    bind = op.get_bind()
    if bind.exec_driver_sql("SELECT to_regclass('post_embeddings')").scalar() is None:
        return
    op.execute("""
ALTER TABLE embedding_backfill
    ADD COLUMN IF NOT EXISTS index_name text,
    ADD COLUMN IF NOT EXISTS index_lists integer,
    ADD COLUMN IF NOT EXISTS index_rows bigint,
    ADD COLUMN IF NOT EXISTS index_built_at timestamptz""")
    for (name,) in bind.exec_driver_sql("""
            SELECT indexname FROM pg_indexes
             WHERE tablename = 'post_embeddings' AND starts_with(indexname, 'ix_post_embeddings_hnsw_')
            """).all():
        op.execute(f'DROP INDEX IF EXISTS "{name}"')
    rows = bind.exec_driver_sql(
        "SELECT count(*) FROM post_embeddings WHERE model = 'wordllama:256'").scalar()
    if rows >= TRAIN_AT:
        lists = max(10, rows // 1000) if rows <= 1_000_000 else int(rows ** 0.5)
        name = "ix_post_embeddings_ivf_wordllama_256_0029"
        op.execute("SET LOCAL maintenance_work_mem = '512MB'")
        bind.exec_driver_sql(  # not text(): ":256" is no bind parameter
            f"CREATE INDEX {name} ON post_embeddings USING ivfflat "
            f"((embedding::halfvec(256)) halfvec_cosine_ops) WITH (lists = {lists}) "
            "WHERE model = 'wordllama:256'")
        bind.exec_driver_sql(
            "INSERT INTO embedding_backfill (model, index_name, index_lists, index_rows,"
            " index_built_at) VALUES ('wordllama:256', %s, %s, %s, now())"
            " ON CONFLICT (model) DO UPDATE SET index_name = EXCLUDED.index_name,"
            " index_lists = EXCLUDED.index_lists, index_rows = EXCLUDED.index_rows,"
            " index_built_at = EXCLUDED.index_built_at", (name, lists, rows))


def downgrade() -> None:
    op.execute("DELETE FROM jobs WHERE type = 'vector_index'")
    _types(TYPES_BEFORE)
    bind = op.get_bind()
    if bind.exec_driver_sql("SELECT to_regclass('post_embeddings')").scalar() is None:
        return
    for (name,) in bind.exec_driver_sql("""
            SELECT indexname FROM pg_indexes
             WHERE tablename = 'post_embeddings' AND starts_with(indexname, 'ix_post_embeddings_ivf_')
            """).all():
        op.execute(f'DROP INDEX IF EXISTS "{name}"')
    op.execute("""
ALTER TABLE embedding_backfill DROP COLUMN IF EXISTS index_name,
    DROP COLUMN IF EXISTS index_lists, DROP COLUMN IF EXISTS index_rows,
    DROP COLUMN IF EXISTS index_built_at""")
    op.execute("""
CREATE INDEX IF NOT EXISTS ix_post_embeddings_hnsw_wordllama_256 ON post_embeddings
 USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)
 WITH (m = 16, ef_construction = 200) WHERE model = 'wordllama:256'""")
