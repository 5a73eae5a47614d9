"""A board shows each item's record as it was when saved (`savedAt`), never a live read of the
catalog: after a re-crawl changes a saved post, the board, its CSV and its key-less share link
still show the saved numbers, and the share link shows exactly the fields the save answered."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text

from tests.boards.helpers import T0, catalog, create_board, save
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import hand_crawl, ingest, outlier_posts, set_time, sim_time_restored

__all__ = ["sim_time_restored"]  # a fixture this module uses
pytestmark = pytest.mark.usefixtures("sim_time_restored")

SAVED = "2026-07-06T10:00:00Z"


def _path(url: str) -> str:
    return url[url.index("/api/v1/"):]


async def _recrawl(db, handle: str, views: int) -> None:
    """A day later the outlier has `views` views, and the creator more followers."""
    crawl = hand_crawl(handle, outlier_posts(handle, T0, big=views), T0 + timedelta(days=1))
    profile = replace(crawl.profile, follower_count=9_999)
    await ingest(db, replace(crawl, profile=profile))


async def test_a_board_and_its_share_link_show_the_records_as_saved(
    client: httpx.AsyncClient, db
) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db, credits=5)
    h = auth(key)
    profile_id, posts = await catalog(db)
    board = await create_board(client, key, "Saved numbers")
    saved_post = (await save(client, key, board["id"], postId=posts[0]))["item"]
    saved_profile = (await save(client, key, board["id"], profileId=profile_id))["item"]
    assert saved_post["savedAt"] == saved_profile["savedAt"] == SAVED
    assert saved_post["post"]["views"] == 20_000
    assert saved_profile["profile"]["follower_count"] == 5_000
    share = (await client.post(f"/api/v1/boards/{board['id']}/share", headers=h)).json()

    # The catalog moves on: a re-crawl a day later.
    await set_time(db, T0 + timedelta(days=1, hours=1))
    await _recrawl(db, "fit.anna", 50_000)
    live = await client.get(f"/api/v1/posts/{posts[0]}", headers=h)  # a paid read sees it
    assert live.json()["views"] == 50_000 and live.headers["x-credits-charged"] == "1"

    got = (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).json()
    public = (await client.get(_path(share["url"]))).json()  # no key
    for body in (got, public):
        by_kind = {i["kind"]: i for i in body["items"]}
        # Exactly what the saves answered: the same fields, the same numbers.
        assert by_kind["post"] == saved_post | {"note": None}
        assert by_kind["profile"] == saved_profile | {"note": None}
    # Saving again changes the note only; the record stays the one saved.
    again = (await save(client, key, board["id"], postId=posts[0], note="still 20K"))["item"]
    assert again["post"] == saved_post["post"] and again["savedAt"] == SAVED

    table = list(csv.DictReader(io.StringIO((await client.get(
        _path(share["url"]), headers={"Accept": "text/csv"})).text)))
    post_row = next(r for r in table if r["kind"] == "post")
    assert post_row["saved_at"] == SAVED and post_row["post_views"] == "20000"
    profile_row = next(r for r in table if r["kind"] == "profile")
    assert profile_row["profile_follower_count"] == "5000"
    assert await balance_and_ledger_sum(db, account_id) == (4, 4)  # the one paid read


async def test_an_item_saved_before_snapshots_takes_one_at_its_first_read(
    client: httpx.AsyncClient, db
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    _, posts = await catalog(db)
    board = await create_board(client, key)
    item = (await save(client, key, board["id"], postId=posts[0]))["item"]
    async with db.transaction() as s:  # as the upgrade leaves an older item
        await s.execute(text("UPDATE board_items SET snapshot = NULL, saved_at = NULL"))

    await set_time(db, T0 + timedelta(hours=5))
    first = (await client.get(f"/api/v1/boards/{board['id']}", headers=auth(key))).json()
    [taken] = first["items"]
    assert taken["savedAt"] == "2026-07-06T15:00:00Z" and taken["addedAt"] == SAVED
    assert taken["post"] == item["post"]

    await _recrawl(db, "fit.anna", 70_000)
    later = (await client.get(f"/api/v1/boards/{board['id']}", headers=auth(key))).json()
    assert later["items"] == first["items"]  # taken once, kept
