"""post_embeddings_hot and post_embeddings_recent: two subsets of the post vectors with their
own HNSW indexes, where pgvector is installed

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-26 04:30:00

A search by meaning whose filters pass few posts walked the whole index past every post they
reject. With `minOutlierScore` 2 or more it now reads the vectors of the posts scoring 2 or
more (hot), with a time frame of up to a month the vectors of the posts published in the
last 35 days (recent, with its publication time, swept each tick). Both are filled here from
the stored vectors, their indexes built after the rows are in. At a million posts: 69,082 hot
and 173,000 recent rows (docs/PERFORMANCE.md gives the time). Where pgvector is missing
nothing is made, as in 0022.
"""

from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

# The same statements as catalog.embedding_schema.SCHEMA's subsets at the time of this revision.
SCHEMA = """
CREATE TABLE IF NOT EXISTS post_embeddings_hot (
    post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    model text NOT NULL,
    embedding vector NOT NULL
);
INSERT INTO post_embeddings_hot (post_id, model, embedding)
SELECT e.post_id, e.model, e.embedding
  FROM post_embeddings e JOIN posts p ON p.id = e.post_id
 WHERE p.score_three_months >= 2
ON CONFLICT (post_id) DO NOTHING;
CREATE INDEX IF NOT EXISTS ix_post_embeddings_hot_hnsw_wordllama_256 ON post_embeddings_hot
 USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)
 WITH (m = 16, ef_construction = 200) WHERE model = 'wordllama:256';
CREATE TABLE IF NOT EXISTS post_embeddings_recent (
    post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    model text NOT NULL,
    embedding vector NOT NULL,
    published_at timestamptz NOT NULL
);
INSERT INTO post_embeddings_recent (post_id, model, embedding, published_at)
SELECT e.post_id, e.model, e.embedding, p.published_at
  FROM post_embeddings e JOIN posts p ON p.id = e.post_id
 WHERE p.published_at > now() - interval '35 days'
ON CONFLICT (post_id) DO NOTHING;
CREATE INDEX IF NOT EXISTS ix_post_embeddings_recent_published
    ON post_embeddings_recent (published_at);
CREATE INDEX IF NOT EXISTS ix_post_embeddings_recent_hnsw_wordllama_256
    ON post_embeddings_recent USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)
 WITH (m = 16, ef_construction = 200) WHERE model = 'wordllama:256';
"""


def upgrade() -> None:
    bind = op.get_bind()
    if bind.exec_driver_sql("SELECT to_regclass('post_embeddings')").scalar() is not None:
        bind.exec_driver_sql(SCHEMA)  # not text(): ":256" is no bind parameter


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS post_embeddings_recent")
    op.execute("DROP TABLE IF EXISTS post_embeddings_hot")
