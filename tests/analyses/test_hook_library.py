"""The hook library (POST /hooks/search, 1 credit, CSV like the searches) and the `hooks`
block of POST /trends, over posts whose features an analysis computed."""

from __future__ import annotations

import csv
import io

import httpx
from sqlalchemy import select

from sors.analyses.breakdown import refresh_creator_features
from sors.catalog.models import Post
from sors.kit.db import Database
from tests.enrichment.api_support import charged
from tests.factories import auth, balance_and_ledger_sum, create_account

from .support import ORDINARY_HOOK, OUTLIER_HOOK, creator

HOOKS = "/api/v1/hooks/search"


async def library(db: Database) -> tuple[list[str], list[str]]:
    ordinary, outliers = await creator(db)
    async with db.transaction() as s:
        profile_id = (await s.execute(select(Post.profile_id).limit(1))).scalar_one()
        await refresh_creator_features(s, profile_id)
    return ordinary, outliers


async def test_hooks_filtered_by_words_type_and_score_best_first(
    client: httpx.AsyncClient, db
) -> None:
    ordinary, outliers = await library(db)
    account_id, key = await create_account(db, credits=10)
    r = await client.post(HOOKS, json={}, headers=auth(key))
    assert r.status_code == 200 and charged(r) == 1, r.text
    page = r.json()
    assert page["total"] == len(ordinary) + len(outliers) and page["page"] == 1
    first = page["results"][0]
    assert first["hookType"] == "question" and first["text"] == OUTLIER_HOOK
    assert first["postId"] in outliers and first["creator"]["handle"] == "plan.with.mia"
    scores = [h["outlierScore"] for h in page["results"]]
    assert scores == sorted(scores, reverse=True)

    r = await client.post(HOOKS, json={"hookTypes": ["question"]}, headers=auth(key))
    assert {h["postId"] for h in r.json()["results"]} == set(outliers)
    r = await client.post(HOOKS, json={"query": "ten minutes week"}, headers=auth(key))
    assert {h["postId"] for h in r.json()["results"]} == set(ordinary)
    assert all(h["text"] == ORDINARY_HOOK for h in r.json()["results"])
    r = await client.post(HOOKS, json={"minOutlierScore": 3}, headers=auth(key))
    assert {h["postId"] for h in r.json()["results"]} == set(outliers)
    r = await client.post(HOOKS, json={"platforms": ["youtube"]}, headers=auth(key))
    assert r.json()["total"] == 0
    r = await client.post(HOOKS, json={"sortBy": "recency", "pageSize": 2}, headers=auth(key))
    newest = r.json()["results"]
    assert len(newest) == 2 and newest[0]["publishedAt"] >= newest[1]["publishedAt"]
    assert r.json()["hasMore"] is True

    r = await client.post(HOOKS, json={"hookTypes": ["shouting"]}, headers=auth(key))
    assert r.status_code == 422 and charged(r) == 0
    r = await client.post(HOOKS, json={"categoryId": "nope"}, headers=auth(key))
    assert r.status_code == 422 and charged(r) == 0
    assert await balance_and_ledger_sum(db, account_id) == (4, 4)  # six calls


async def test_hooks_as_csv(client: httpx.AsyncClient, db) -> None:
    _, outliers = await library(db)
    _, key = await create_account(db, credits=5)
    r = await client.post(
        HOOKS, json={"hookTypes": ["question"]}, headers={**auth(key), "Accept": "text/csv"}
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["x-total"] == str(len(outliers)) and charged(r) == 1
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert {row["post_id"] for row in rows} == set(outliers)
    assert all(row["hook_type"] == "question" and row["text"] == OUTLIER_HOOK for row in rows)


async def test_trends_count_hook_types_among_outliers_and_ordinary_posts(
    client: httpx.AsyncClient, db
) -> None:
    ordinary, outliers = await library(db)
    _, key = await create_account(db, credits=5)
    r = await client.post("/api/v1/trends", json={"timeFrame": "all_time"}, headers=auth(key))
    assert r.status_code == 200, r.text
    hooks = r.json()["hooks"]
    assert hooks["analysedPosts"] == len(ordinary) + len(outliers)
    assert hooks["outlierPosts"] == len(outliers)
    by_type = {t["hookType"]: t for t in hooks["types"]}
    assert by_type["question"]["outliers"] == len(outliers)
    assert by_type["question"]["ordinary"] == 0 and by_type["question"]["lift"] is None
    assert by_type["how_to"]["ordinary"] == len(ordinary) and by_type["how_to"]["outliers"] == 0
    assert hooks["types"][0]["hookType"] == "question"
