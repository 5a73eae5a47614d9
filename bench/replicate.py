"""A bigger catalog from the 1M-post one: N copies of its world under new ids and handles.

    python bench/replicate.py --admin-url postgresql://…/postgres \
        [--source sors_bench] [--target sors_bench10m] [--copies 10]

Generating ten million posts through `bench/search.py build` takes hours on 2 vCPU (about
2,300 posts/s, every index maintained row by row, slower as the indexes outgrow memory).
This makes the same kind of catalog in well under an hour: the target is created from the
source as a template, then every profile is copied `copies - 1` times with its posts, their
stat snapshots, phrases, categories and niche. A copy's ids keep the product's format
(`prf_` / `pst_` and 26 base-32 characters: the first one, `0` in every id minted before
2050, becomes the copy's number), its handles and platform ids gain a suffix, and everything
else is the source's: counts, captions, publish times, scores and baselines (a profile's
scores depend on its own posts only, so they hold for its copy). So the catalog has ten
times the creators posting in the same weeks, each caption ten times over.

Vectors are not copied (the target's vector tables are emptied): search by meaning is
measured at 1M (`bench/semantic_million.py`). Secondary indexes are dropped before the load
and built after it, one at a time with two parallel workers, each build timed (printed:
the sizing table of docs/OPERATIONS.md comes from this output); then `VACUUM ANALYZE`.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import psycopg

# Tables copied with each profile; a copy's rows are the source rows whose ids start with 0.
COPIED = ("profiles", "posts", "post_stats", "post_ideas", "profile_categories", "profile_niches")
VECTORS = ("post_embeddings", "post_embeddings_hot", "post_embeddings_recent")


def _timed(label: str, conn: Any, sql: str, params: dict[str, Any] | None = None) -> None:
    t = time.perf_counter()
    conn.execute(sql, params)
    print(f"{time.perf_counter() - t:8.1f} s  {label}", flush=True)


def _columns(conn: psycopg.Connection[Any], table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'"
        " AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [r[0] for r in rows]


def _rewrite(table: str, column: str) -> str:
    """The copy's value of a column (%(k)s is the copy's number, 1-9)."""
    if column in ("id", "profile_id", "post_id") or (
        table == "profiles" and column == "renamed_to_id"
    ):
        # 'pst_0…' → 'pst_<k>…': same length and alphabet as an id the product mints (NULL
        # stays NULL).
        return f"left({column}, 4) || %(k)s || substr({column}, 6)"
    if table == "profiles" and column == "handle":
        return "handle || '.c' || %(k)s"
    if table == "profiles" and column == "platform_user_id":
        return "platform_user_id || '~' || %(k)s"
    if table == "posts" and column == "platform_post_id":
        return "platform_post_id || '~' || %(k)s"
    return column


def _secondary_indexes(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    """(name, definition) of every index on the copied tables that backs no constraint,
    smallest first (the order they are rebuilt in)."""
    return conn.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = 'public'"
        " AND i.tablename = ANY(%s) AND NOT EXISTS"
        " (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
        " ORDER BY pg_relation_size(i.indexname::regclass)",
        (list(COPIED),),
    ).fetchall()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--admin-url", required=True)
    ap.add_argument("--source", default="sors_bench")
    ap.add_argument("--target", default="sors_bench10m")
    ap.add_argument(
        "--copies", type=int, default=10, help="the target holds this many worlds (2-10)"
    )
    args = ap.parse_args()
    if not 2 <= args.copies <= 10:
        raise SystemExit("--copies must be 2 to 10: a copy's number is one base-32 digit, 1-9")
    started = time.perf_counter()
    with psycopg.connect(args.admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{args.target}" WITH (FORCE)')
        _timed(
            "database from template",
            admin,
            f'CREATE DATABASE "{args.target}" TEMPLATE "{args.source}"',
        )
    url = psycopg.conninfo.make_conninfo(args.admin_url, dbname=args.target)
    with psycopg.connect(url, autocommit=True) as conn:
        bad = conn.execute(
            "SELECT (SELECT count(*) FROM posts WHERE id NOT LIKE 'pst\\_0%')"
            " + (SELECT count(*) FROM profiles WHERE id NOT LIKE 'prf\\_0%')"
        ).fetchone()[0]  # type: ignore[index]
        if bad:
            raise SystemExit(
                f"{bad} ids do not start with a 0 after their prefix: not a source world"
            )
        for table in (*VECTORS, "embedding_backfill"):
            if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0]:  # type: ignore[index]
                conn.execute(f"TRUNCATE {table}")
        indexes = _secondary_indexes(conn)
        for name, _ in indexes:
            conn.execute(f"DROP INDEX {name}")
        print(f"dropped {len(indexes)} secondary indexes", flush=True)
        conn.execute(
            "SET session_replication_role = replica"
        )  # rows are consistent by construction
        for k in range(1, args.copies):
            with conn.transaction():
                for table in COPIED:
                    cols = _columns(conn, table)
                    select = ", ".join(_rewrite(table, c) for c in cols)
                    key = "id" if table in ("profiles", "posts") else cols[0]
                    prefix = "prf" if key == "profile_id" or table == "profiles" else "pst"
                    _timed(
                        f"copy {k}: {table}",
                        conn,
                        f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM {table}"
                        f" WHERE {key} LIKE '{prefix}\\_0%%'",
                        {"k": str(k)},
                    )
        conn.execute("SET session_replication_role = DEFAULT")
        conn.execute("SET maintenance_work_mem = '2GB'")
        conn.execute("SET max_parallel_maintenance_workers = 2")
        for name, definition in indexes:
            _timed(f"index {name}", conn, definition)
        _timed("VACUUM ANALYZE", conn, "VACUUM ANALYZE")
        for table in COPIED:
            n, heap, idx = conn.execute(
                f"SELECT count(*), pg_size_pretty(pg_table_size('{table}')),"
                f" pg_size_pretty(pg_indexes_size('{table}')) FROM {table}"
            ).fetchone()  # type: ignore[misc]
            print(f"{table}: {n:,} rows, {heap} heap, {idx} indexes", flush=True)
        size = conn.execute(
            "SELECT pg_size_pretty(pg_database_size(current_database()))"
        ).fetchone()[0]  # type: ignore[index]
    print(f"{args.target}: {size}, built in {time.perf_counter() - started:,.0f} s", flush=True)


if __name__ == "__main__":
    main()
