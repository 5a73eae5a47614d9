"""Search by meaning, judged: a relevance set run through the HTTP API against a built world.

    python bench/relevance.py build [--data-dir /tmp/sors-relevance] [--profiles 1200]
    python bench/relevance.py run [--data-dir /tmp/sors-relevance] [--set blind|dev]
    python bench/relevance.py tune [--data-dir /tmp/sors-relevance] [--weights 0,0.05,0.1]

`build` makes a database (`sors_relevance`, on the embedded server in `--data-dir` or on
`--admin-url`) and seeds the simulated world through the demo's own seed path (the real
ingest; every post embedded by the configured model, SORS_EMBEDDING_MODEL), then analyses it
and trains the vector index as a server that has run a while has.

`run` starts a real server (uvicorn) on that database and sends every query of a set as a
client would (`semantic: true`, no other filter), then prints one JSON object:
- `onTopic`: the share of each query's top 10 whose post is in one of the query's niches
  (the creator's niche in the world, or a sub-niche of it): mean, median, p10, queries with
  none, top 1 on topic; and how the queries' `match` came out;
- `offCatalog`: queries about topics the world does not hold: the share answered `none` or
  `weak`, and those answered `good`;
- `otherLanguages`: English queries about a niche some of whose creators post in another
  language (sors.platforms.sim.languages): the share with such a post of the niche in the
  top 10 / top 20 / among the candidates (read to 200), and the mean reciprocal rank of the
  first one; and among the other-language posts of the candidates alone, the share whose
  first is of the niche and that reciprocal rank.
Sets (bench/relevance/README.md): `blind`, written by someone who never saw the captions and
never used to tune; `dev` (bench/relevance/dev/), written to choose the word weight.

`tune` runs the dev set in-process (the service function, no HTTP) once per word weight
(`semantic.WORD_WEIGHT`), and once with the words' weights from the statistics and once
counted (catalog.search.words), so the two can be compared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_world import admin_url, db_url  # noqa: E402
from bench.serving import _account, _free_port, _start_server  # noqa: E402

SETS = ROOT / "bench" / "relevance"
DB_NAME = "sors_relevance"
NOW = datetime(2026, 11, 1, tzinfo=UTC)
SEED = 0
DEPTH = 200  # the candidates of a `semantic` search (semantic.MEANING_DEPTH)


def _tsv(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8")
            if line.strip()]


def load_set(name: str) -> dict[str, list[tuple[str, list[str]]]]:
    base = SETS if name == "blind" else SETS / name
    return {
        "onTopic": [(q, n.split(",")) for q, n in _tsv(base / "queries.tsv")],
        "offCatalog": [(row[0], []) for row in _tsv(base / "offcatalog.tsv")],
        "otherLanguages": [(q, [n]) for q, n in _tsv(base / "multilingual_queries.tsv")],
    }


def on_topic(niche: str | None, wanted: list[str]) -> bool:
    return niche is not None and any(niche == w or niche.startswith(w + ".") for w in wanted)


# ---- build ----------------------------------------------------------------------------


def _settings(url: str, data_dir: str) -> Any:
    from bench.search_world import _settings as settings

    return settings(url, data_dir)


async def _build(url: str, data_dir: str, profiles: int) -> dict[str, Any]:
    from sqlalchemy import text

    from sors.catalog.vectors import embeddings, pool
    from sors.catalog.vectors import index as vector_index
    from sors.demo.seed import seed_world
    from sors.kit.db import Database, make_engine

    settings = _settings(url, data_dir)
    db = Database(make_engine(settings, url))
    try:
        started = time.perf_counter()
        seeded = await seed_world(db, settings=settings, profiles=profiles, seed=SEED, now=NOW)
        took = time.perf_counter() - started
        pool.release()
        async with db.session() as s:
            await s.execute(text("ANALYZE posts"))
            await s.commit()
        model = embeddings.embedder_or_none(settings)
        assert model is not None
        built = await vector_index.train(db, model.key, model.dims)
    finally:
        await db.dispose()
    return {"profiles": seeded.profiles, "posts": seeded.posts, "seconds": round(took, 1),
            "model": model.key, "index": built}


# ---- judging --------------------------------------------------------------------------


class Judge:
    """Each post's niche and language in the world (posts.extra, as the simulated source
    wrote it)."""

    def __init__(self, url: str) -> None:
        with psycopg.connect(url) as conn:
            self.posts = {r[0]: (r[1], r[2]) for r in conn.execute(
                "SELECT id, extra ->> 'niche', extra ->> 'language' FROM posts")}
        self.foreign_niches = {n for n, lang in self.posts.values() if lang}

    def niche(self, post_id: str) -> str | None:
        return self.posts.get(post_id, (None, None))[0]

    def foreign(self, post_id: str) -> bool:
        return self.posts.get(post_id, (None, None))[1] is not None


def _summary(per_query: list[dict[str, Any]], judge: Judge) -> dict[str, Any]:
    shares = [q["share"] for q in per_query]
    matches = [q["match"] for q in per_query]
    return {
        "queries": len(shares),
        "mean": round(statistics.mean(shares), 3),
        "median": round(statistics.median(shares), 3),
        "p10": round(sorted(shares)[len(shares) // 10], 3),
        "queriesWithNone": sum(1 for s in shares if s == 0),
        "top1OnTopic": round(statistics.mean(q["top1"] for q in per_query), 3),
        "match": {m: round(matches.count(m) / len(matches), 3) for m in ("good", "weak", "none")},
    }


def score(sets: dict[str, list[tuple[str, list[str]]]], search: Any, judge: Judge
          ) -> dict[str, Any]:
    """`search(query, page, size)` → (results, match): the figures of the module docstring."""
    per_query = []
    for query, wanted in sets["onTopic"]:
        results, match = search(query, 1, 10)
        niches = [judge.niche(r["id"]) for r in results[:10]]
        per_query.append({"query": query, "share": sum(on_topic(n, wanted) for n in niches) / 10,
                          "top1": bool(niches) and on_topic(niches[0], wanted), "match": match,
                          "best": results[0]["similarity"] if results else None})
    off = []
    for query, _ in sets["offCatalog"]:
        results, match = search(query, 1, 10)
        off.append({"query": query, "match": match,
                    "best": results[0]["similarity"] if results else None})
    languages = []
    for query, wanted in sets["otherLanguages"]:
        if wanted[0] not in judge.foreign_niches:
            continue  # no creator of that niche posts in another language in this world
        results = search(query, 1, 100)[0] + search(query, 2, 100)[0]
        foreign = [on_topic(judge.niche(r["id"]), wanted) for r in results
                   if judge.foreign(r["id"])]
        ranks = [i for i, r in enumerate(results, 1)
                 if judge.foreign(r["id"]) and on_topic(judge.niche(r["id"]), wanted)]
        languages.append({"query": query, "first": ranks[0] if ranks else None,
                          "amongForeign": foreign.index(True) + 1 if True in foreign else None})
    firsts = [q["first"] for q in languages]
    among = [q["amongForeign"] for q in languages]
    return {
        "onTopic": _summary(per_query, judge),
        "offCatalog": {
            "queries": len(off),
            "noneOrWeak": round(sum(q["match"] in ("none", "weak") for q in off) / len(off), 3),
            "none": round(sum(q["match"] == "none" for q in off) / len(off), 3),
            "good": [(q["query"], q["best"]) for q in off if q["match"] == "good"],
        },
        "otherLanguages": {
            "queries": len(firsts),
            "inTop10": _share(firsts, 10), "inTop20": _share(firsts, 20),
            "inCandidates": _share(firsts, DEPTH),
            "mrr": round(statistics.mean(1 / f if f else 0 for f in firsts), 3) if firsts else None,
            # Among the other-language posts of the candidates only: is the first of them
            # about the query's niche (the model matching across languages, apart from
            # English posts outranking them)?
            "amongForeignFirst": _share(among, 1),
            "amongForeignMrr": (round(statistics.mean(1 / f if f else 0 for f in among), 3)
                                if among else None),
        },
        "perQuery": {"onTopic": per_query, "offCatalog": off, "otherLanguages": languages},
    }


def _share(firsts: list[int | None], k: int) -> float | None:
    return round(sum(1 for f in firsts if f and f <= k) / len(firsts), 3) if firsts else None


# ---- run (HTTP) -----------------------------------------------------------------------


def run(url: str, data_dir: str, set_name: str) -> dict[str, Any]:
    judge = Judge(url.replace("postgresql+psycopg://", "postgresql://", 1))
    key = asyncio.run(_account(url, data_dir))
    port = _free_port()
    server = _start_server(url, data_dir, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60,
                          headers={"Authorization": f"Bearer {key}"}) as client:

            def search(query: str, page: int, size: int) -> tuple[list[Any], str | None]:
                r = client.post("/api/v1/search/content", json={
                    "query": query, "semantic": True, "timeFrame": "all_time", "page": page,
                    "pageSize": size})
                assert r.status_code == 200, r.text
                assert r.headers["x-credits-charged"] == "1"
                body = r.json()
                return body["results"], body.get("match")

            return score(load_set(set_name), search, judge)
    finally:
        server.terminate()


# ---- tune (in-process) ----------------------------------------------------------------


def tune(url: str, data_dir: str, weights: list[float]) -> dict[str, Any]:
    from sors.catalog.search import semantic, service
    from sors.catalog.search import words as query_words
    from sors.catalog.search.schemas import SearchContentIn
    from sors.kit.db import Database, make_engine

    judge = Judge(url.replace("postgresql+psycopg://", "postgresql://", 1))
    settings = _settings(url, data_dir)
    sets = load_set("dev")
    out: dict[str, Any] = {}

    async def one_pass() -> dict[str, Any]:
        db = Database(make_engine(settings, url))
        found: dict[tuple[str, int, int], tuple[list[Any], str | None]] = {}
        try:
            async with db.session() as s:
                for query, _ in [q for part in sets.values() for q in part]:
                    for page, size in ((1, 10), (1, 100), (2, 100)):
                        body = SearchContentIn(query=query, semantic=True, timeFrame="all_time",
                                               page=page, pageSize=size)
                        answer = await service.search_content(s, body, now=NOW,
                                                              settings=settings)
                        found[(query, page, size)] = (
                            [r.model_dump() for r in answer.results], answer.match)
        finally:
            await db.dispose()
        result = score(sets, lambda q, p, n: found[(q, p, n)], judge)
        result.pop("perQuery")
        return result

    for weight in weights:
        semantic.WORD_WEIGHT = weight
        out[f"weight {weight}"] = asyncio.run(one_pass())
    exact = query_words.EXACT_BELOW
    query_words.EXACT_BELOW = 10**12  # every word counted, whatever the catalog's size
    try:
        out["counted, weight " + str(weights[-1])] = asyncio.run(one_pass())
    finally:
        query_words.EXACT_BELOW = exact
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["build", "run", "tune"])
    ap.add_argument("--data-dir", default="/tmp/sors-relevance")
    ap.add_argument("--admin-url", default=None)
    ap.add_argument("--database", default=DB_NAME)
    ap.add_argument("--profiles", type=int, default=1200)
    ap.add_argument("--set", default="blind", choices=["blind", "dev"])
    ap.add_argument("--weights", default="0,0.05,0.1,0.15,0.2,0.3")
    ap.add_argument("--per-query", action="store_true", help="print each query's figures too")
    args = ap.parse_args()
    admin = admin_url(args)
    plain = db_url(admin, args.database)
    url = plain.replace("postgresql://", "postgresql+psycopg://", 1)
    if args.command == "build":
        from sors.kit import migrate

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{args.database}"')
        migrate.upgrade(url)
        print(json.dumps(asyncio.run(_build(url, args.data_dir, args.profiles))))
        return
    if args.command == "tune":
        weights = [float(w) for w in args.weights.split(",")]
        print(json.dumps(tune(url, args.data_dir, weights), indent=1))
        return
    result = run(url, args.data_dir, args.set)
    if not args.per_query:
        result.pop("perQuery")
    result["load"] = [round(x, 2) for x in __import__("os").getloadavg()]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
