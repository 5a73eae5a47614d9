"""Where post vectors live, as DDL: the tables and subset indexes for a server that gains
pgvector after migrating (`sors migrate` runs `ensure_schema`), the subsets' membership rule
(shared by the writes in catalog.embeddings and the crawl's scoring), and the index names of
a model other than the default one."""

from __future__ import annotations

from typing import Any

import structlog

log = structlog.get_logger(__name__)

# Two subsets of the vectors have an index of their own, so that a search by meaning whose
# filters pass few posts does not walk the whole index past every post they reject
# (docs/PERFORMANCE.md, "Search by meaning"). Each holds at least every vector of its posts
# (a superset: a post that left may stay until it is swept), and a search uses one only when
# every post its filters can pass is among them (catalog.semantic).
# - hot: posts at or above HOT_SCORE (the three-month mean score, the default). At a million
#   posts 6.8% of posts; `minOutlierScore: 3` passes half of them instead of 3.7% of all.
#   A post enters at the crawl that scores it so (catalog.scoring) or when its vector is
#   written, and leaves at the crawl that scores it below.
# - recent: posts published in the last RECENT_DAYS days by the database's clock (17% of
#   posts at a million); the time frames up to a month read it. Rows older than that are
#   swept each scheduler tick (`sweep_recent`).
HOT_SCORE = 2
RECENT_DAYS = 35
HOT_POSTS = f"p.score_three_months >= {HOT_SCORE}"
RECENT_POSTS = f"p.published_at > now() - interval '{RECENT_DAYS} days'"



def index_slug(model_key: str, length: int) -> str:
    """A model key as it appears in its indexes' names (at most `length` characters)."""
    return "".join(c if c.isalnum() else "_" for c in model_key.lower())[:length]


# Migrations 0022, 0028 and 0029's statements: a server that gains pgvector after migrating
# gets them from `sors migrate` (cli: ensure_schema after the upgrade). The index over all
# vectors comes later, once there are enough to train it (catalog.vector_index).
SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS post_embeddings (
    post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    model text NOT NULL,
    embedding vector NOT NULL,
    embedded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ix_post_embeddings_model ON post_embeddings (model);
CREATE TABLE IF NOT EXISTS embedding_backfill (
    model text PRIMARY KEY,
    cursor text NOT NULL DEFAULT '',
    done boolean NOT NULL DEFAULT false,
    index_name text,
    index_lists integer,
    index_rows bigint,
    index_built_at timestamptz
);
CREATE TABLE IF NOT EXISTS post_embeddings_pending (
    post_id text PRIMARY KEY,
    queued_at timestamptz NOT NULL DEFAULT now()
);
""" + f"""
CREATE TABLE IF NOT EXISTS post_embeddings_hot (
    post_id text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    model text NOT NULL,
    embedding vector NOT NULL
);
INSERT INTO post_embeddings_hot (post_id, model, embedding)
SELECT e.post_id, e.model, e.embedding
  FROM post_embeddings e JOIN posts p ON p.id = e.post_id
 WHERE {HOT_POSTS}
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
 WHERE {RECENT_POSTS}
ON CONFLICT (post_id) DO NOTHING;
CREATE INDEX IF NOT EXISTS ix_post_embeddings_recent_published
    ON post_embeddings_recent (published_at);
CREATE INDEX IF NOT EXISTS ix_post_embeddings_recent_hnsw_wordllama_256
    ON post_embeddings_recent USING hnsw ((embedding::halfvec(256)) halfvec_cosine_ops)
 WITH (m = 16, ef_construction = 200) WHERE model = 'wordllama:256';
"""


def ensure_schema(conn: Any) -> bool:
    """On a psycopg connection (autocommit): make the embeddings tables when pgvector is
    available and they are missing. Whether search by meaning can work here."""
    import psycopg

    if conn.execute("SELECT to_regclass('post_embeddings_recent')").fetchone()[0] is not None:
        return True
    if not conn.execute(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone():
        return False
    try:
        conn.execute(SCHEMA)
    except psycopg.Error as exc:  # e.g. a role that may not create extensions
        log.warning("embeddings_schema_not_made: %s", exc)
        return False
    return True


def index_statements(model_key: str, dims: int) -> list[str]:
    """The subsets' HNSW indexes of a model other than the default one (made before its
    first use; the index over all its vectors is trained once there are enough of them)."""
    slug = index_slug(model_key, 40)
    quoted = model_key.replace("'", "''")
    return [f"CREATE INDEX IF NOT EXISTS ix_{table}_hnsw_{slug} ON {table} "
            f"USING hnsw ((embedding::halfvec({int(dims)})) halfvec_cosine_ops) "
            "WITH (m = 16, ef_construction = 200) "
            f"WHERE model = '{quoted}'"
            for table in ("post_embeddings_hot", "post_embeddings_recent")]
