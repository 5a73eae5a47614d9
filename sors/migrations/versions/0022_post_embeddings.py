"""post_embeddings: a vector per post for search by meaning (pgvector), where available

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-25 21:00:00

One row per post: the model key that made it ("wordllama:256") and the vector (pgvector's
`vector`, no fixed dimension, so a model of another size fits the same table). Each model
has its own HNSW index over the vector cast to half precision, partial on the model key: a
query names the key, so two models' vectors are never compared, and a model change re-embeds
instead of mixing spaces. The default model's index is made here; another model's by
`catalog.embeddings.ensure_index` when first used.

pgvector ships with the embedded PostgreSQL; an external server may not have it (Debian 12's
PostgreSQL 15 does not package it). Then nothing is created here, every other feature works,
and semantic requests answer 503 `semantic_unavailable` (docs/OPERATIONS.md says how to
install it and run `sors migrate` again: this migration is re-checked by
`catalog.embedding_schema.ensure_schema` at start).
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

# The same statements as catalog.embedding_schema.SCHEMA at the time of this revision.
SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS post_embeddings (
    post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    model text NOT NULL,
    embedding vector NOT NULL,
    embedded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ix_post_embeddings_model ON post_embeddings (model);
CREATE INDEX IF NOT EXISTS ix_post_embeddings_hnsw_wordllama_256 ON post_embeddings
 USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)
 WITH (m = 16, ef_construction = 200) WHERE model = 'wordllama:256';
CREATE TABLE IF NOT EXISTS embedding_backfill (
    model text PRIMARY KEY,
    cursor text NOT NULL DEFAULT '',
    done boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS post_embeddings_pending (
    post_id text PRIMARY KEY,
    queued_at timestamptz NOT NULL DEFAULT now()
);
"""


def upgrade() -> None:
    bind = op.get_bind()
    available = bind.exec_driver_sql(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").first()
    if available:
        bind.exec_driver_sql(SCHEMA)  # not text(): ":256" is no bind parameter


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS post_embeddings_pending")
    op.execute("DROP TABLE IF EXISTS embedding_backfill")
    op.execute("DROP TABLE IF EXISTS post_embeddings")
