"""Boards over HTTP against PostgreSQL: create, list, read (JSON and CSV), save posts and
profiles with notes (a second save finds the item there), remove, delete; free on every
route; another account's board is 404 everywhere; bad input is 4xx and changes nothing."""

from __future__ import annotations

import csv
import io

import httpx
import pytest

from sors.billing.pricing import get_pricing
from sors.boards import service
from tests.boards.helpers import catalog, count, create_board, save
from tests.factories import auth, balance_and_ledger_sum, create_account

BOARD_SKILLS = {
    "create_board", "list_boards", "get_board", "delete_board", "add_board_item",
    "delete_board_item", "share_board", "unshare_board",
}


async def test_a_board_keeps_posts_and_profiles_with_their_current_records(
    client: httpx.AsyncClient, db
) -> None:
    account_id, key = await create_account(db, credits=7)
    h = auth(key)
    profile_id, posts = await catalog(db)
    r = await client.post("/api/v1/boards", json={"name": "  Coffee hooks  "}, headers=h)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "0" and r.headers["x-credits-balance"] == "7"
    board = r.json()
    assert board["id"].startswith("brd_") and board["name"] == "Coffee hooks"
    assert board["itemCount"] == 0 and board["share"] is None

    first = await save(client, key, board["id"], postId=posts[0], note="the 20K outlier")
    assert first["created"] is True and first["item"]["id"].startswith("bdi_")
    item = first["item"]
    assert item["kind"] == "post" and item["note"] == "the 20K outlier" and item["profile"] is None
    # The post as searches show it: the flattened record with its creator and scores.
    assert item["post"]["id"] == posts[0] and item["post"]["views"] == 20_000
    assert item["post"]["handle"] == "fit.anna" and "outlier_scores" in item["post"]

    second = await save(client, key, board["id"], profileId=profile_id)
    assert second["created"] is True and second["item"]["kind"] == "profile"
    assert second["item"]["profile"]["id"] == profile_id and second["item"]["post"] is None
    assert second["item"]["note"] is None

    got = (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).json()
    assert got["itemCount"] == 2
    assert [i["id"] for i in got["items"]] == [second["item"]["id"], item["id"]]  # last first
    assert got["items"][1]["post"]["id"] == posts[0]

    listed = (await client.get("/api/v1/boards", headers=h)).json()["results"]
    assert [(b["id"], b["itemCount"]) for b in listed] == [(board["id"], 2)]

    r = await client.delete(f"/api/v1/boards/{board['id']}/items/{item['id']}", headers=h)
    assert r.status_code == 200 and r.json() == {"id": item["id"], "status": "deleted"}
    got = (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).json()
    assert [i["kind"] for i in got["items"]] == ["profile"]
    r = await client.delete(f"/api/v1/boards/{board['id']}/items/{item['id']}", headers=h)
    assert r.status_code == 404

    r = await client.delete(f"/api/v1/boards/{board['id']}", headers=h)
    assert r.json() == {"id": board["id"], "status": "deleted"}
    assert (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).status_code == 404
    assert await count(db, "board_items") == 0
    assert await count(db, "posts") == 11  # the posts themselves stay
    assert await balance_and_ledger_sum(db, account_id) == (7, 7)
    assert await count(db, "ledger_entries") == 1  # the grant only: nothing was charged


async def test_saving_an_item_twice_finds_it_and_replaces_the_note(
    client: httpx.AsyncClient, db
) -> None:
    _, key = await create_account(db)
    _, posts = await catalog(db)
    board = await create_board(client, key)
    first = await save(client, key, board["id"], postId=posts[1], note="first take")
    again = await save(client, key, board["id"], postId=posts[1])
    assert again["created"] is False and again["item"]["id"] == first["item"]["id"]
    assert again["item"]["note"] == "first take"  # no note sent: the note stays
    edited = await save(client, key, board["id"], postId=posts[1], note="second take")
    assert edited["created"] is False and edited["item"]["note"] == "second take"
    assert await count(db, "board_items") == 1
    # The same post on another board is another item.
    other = await create_board(client, key, "Other")
    assert (await save(client, key, other["id"], postId=posts[1]))["created"] is True


async def test_the_board_as_csv_has_one_row_per_item(client: httpx.AsyncClient, db) -> None:
    _, key = await create_account(db)
    profile_id, posts = await catalog(db)
    board = await create_board(client, key)
    await save(client, key, board["id"], postId=posts[0], note="=HYPERLINK(\"x\")")
    await save(client, key, board["id"], profileId=profile_id, note="creator to watch")
    r = await client.get(f"/api/v1/boards/{board['id']}",
                         headers={**auth(key), "Accept": "text/csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["kind"] for row in table] == ["profile", "post"]
    profile_row, post_row = table
    assert profile_row["post_id"] == "" and profile_row["post_views"] == ""  # post columns blank
    assert profile_row["profile_id"] == profile_id and profile_row["profile_handle"] == "fit.anna"
    assert profile_row["note"] == "creator to watch"
    assert post_row["post_id"] == posts[0] and post_row["post_views"] == "20000"
    assert post_row["post_profile_id"] == profile_id and post_row["profile_id"] == ""
    assert post_row["note"].startswith("'=")  # a formula is defused, as in search CSV
    assert "post_outlier_score_one_week" in post_row and "post_score" not in post_row
    header = r.text.splitlines()[0].split(",")
    assert len(header) == len(set(header))  # no column twice


async def test_another_accounts_board_is_404_everywhere(client: httpx.AsyncClient, db) -> None:
    _, key1 = await create_account(db, email="one@example.com")
    _, key2 = await create_account(db, email="two@example.com")
    _, posts = await catalog(db)
    board = await create_board(client, key1)
    item = (await save(client, key1, board["id"], postId=posts[0]))["item"]
    bid = board["id"]
    calls = [
        ("GET", f"/api/v1/boards/{bid}", None),
        ("DELETE", f"/api/v1/boards/{bid}", None),
        ("POST", f"/api/v1/boards/{bid}/items", {"postId": posts[1]}),
        ("DELETE", f"/api/v1/boards/{bid}/items/{item['id']}", None),
        ("POST", f"/api/v1/boards/{bid}/share", None),
        ("DELETE", f"/api/v1/boards/{bid}/share", None),
    ]
    for method, path, body in calls:
        r = await client.request(method, path, json=body, headers=auth(key2))
        assert r.status_code == 404 and r.json()["code"] == "not_found", (method, path)
    assert (await client.get("/api/v1/boards", headers=auth(key2))).json() == {"results": []}
    got = (await client.get(f"/api/v1/boards/{bid}", headers=auth(key1))).json()
    assert got["itemCount"] == 1 and got["share"] is None  # untouched
    assert (await client.get("/api/v1/boards")).status_code == 401


@pytest.mark.parametrize("body,field", [
    ({}, "postId"),
    ({"postId": "pst_a", "profileId": "prf_b"}, "postId"),
    ({"postId": 5}, "postId"),
    ({"postId": None}, "postId"),
    ({"postId": "pst_a", "note": "x" * 1001}, "note"),
    ({"postId": "pst_a", "notes": "typo"}, "notes"),
])
async def test_bad_items_are_422_and_change_nothing(
    client: httpx.AsyncClient, db, body, field
) -> None:
    _, key = await create_account(db)
    board = await create_board(client, key)
    r = await client.post(f"/api/v1/boards/{board['id']}/items", json=body, headers=auth(key))
    assert r.status_code == 422, r.text
    assert field in r.text
    assert await count(db, "board_items") == 0


async def test_unknown_posts_and_profiles_are_404_and_change_nothing(
    client: httpx.AsyncClient, db
) -> None:
    _, key = await create_account(db)
    board = await create_board(client, key)
    before = board["updatedAt"]
    for body, code in (({"postId": "pst_nope"}, "post_not_found"),
                       ({"profileId": "prf_nope"}, "profile_not_found")):
        r = await client.post(f"/api/v1/boards/{board['id']}/items", json=body, headers=auth(key))
        assert r.status_code == 404 and r.json()["code"] == code
    assert await count(db, "board_items") == 0
    got = (await client.get(f"/api/v1/boards/{board['id']}", headers=auth(key))).json()
    assert got["updatedAt"] == before


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": "x" * 101},
                                  {"name": 7}, {"name": "ok", "color": "red"}])
async def test_bad_board_names_are_422_and_change_nothing(
    client: httpx.AsyncClient, db, body
) -> None:
    _, key = await create_account(db)
    r = await client.post("/api/v1/boards", json=body, headers=auth(key))
    assert r.status_code == 422, r.text
    assert await count(db, "boards") == 0


async def test_limits_are_409_and_change_nothing(
    client: httpx.AsyncClient, db, monkeypatch
) -> None:
    _, key = await create_account(db)
    profile_id, posts = await catalog(db)
    monkeypatch.setattr(service, "MAX_BOARDS", 2)
    monkeypatch.setattr(service, "MAX_ITEMS", 2)
    board = await create_board(client, key, "one")
    await create_board(client, key, "two")
    r = await client.post("/api/v1/boards", json={"name": "three"}, headers=auth(key))
    assert r.status_code == 409 and r.json()["code"] == "board_limit_reached"
    assert await count(db, "boards") == 2
    await save(client, key, board["id"], postId=posts[0])
    await save(client, key, board["id"], profileId=profile_id)
    r = await client.post(f"/api/v1/boards/{board['id']}/items", json={"postId": posts[1]},
                          headers=auth(key))
    assert r.status_code == 409 and r.json()["code"] == "board_item_limit_reached"
    # A full board still takes a note on an item it holds.
    assert (await save(client, key, board["id"], postId=posts[0], note="n"))["created"] is False
    assert await count(db, "board_items") == 2


async def test_a_viewer_reads_boards_but_does_not_change_them(
    client: httpx.AsyncClient, db
) -> None:
    from tests.factories import create_member_key

    account_id, key = await create_account(db)
    _, viewer = await create_member_key(db, account_id, role="viewer")
    board = await create_board(client, key)
    got = await client.get(f"/api/v1/boards/{board['id']}", headers=auth(viewer))
    assert got.status_code == 200 and got.json()["id"] == board["id"]
    r = await client.post("/api/v1/boards", json={"name": "nope"}, headers=auth(viewer))
    assert r.status_code == 403 and r.json()["code"] == "role_forbidden"
    assert await count(db, "boards") == 1


async def test_every_route_is_free_and_listed(client: httpx.AsyncClient) -> None:
    listed = {s["key"]: s for s in (await client.get("/api/v1/pricing")).json()["skills"]}
    assert BOARD_SKILLS <= set(listed)
    assert all(listed[k]["credits"] == 0 == get_pricing().cost(k) for k in BOARD_SKILLS)
    doc = (await client.get("/api/v1/openapi.json")).json()
    routes = {
        (method.upper(), path): op
        for path, ops in doc["paths"].items() if path.startswith("/api/v1/boards")
        for method, op in ops.items()
    }
    assert sorted(op.get("x-sors-skill") for op in routes.values()) == sorted(BOARD_SKILLS)
    for key in BOARD_SKILLS:
        op = routes[(listed[key]["method"], listed[key]["path"])]
        assert op["x-sors-skill"] == key
        assert "404" in op["responses"] or key in ("create_board", "list_boards")
    ok = routes[("GET", "/api/v1/boards/{boardId}")]["responses"]["200"]["content"]
    assert set(ok) == {"application/json", "text/csv"}
    item_body = routes[("POST", "/api/v1/boards/{boardId}/items")]["requestBody"]
    schema = item_body["content"]["application/json"]["schema"]
    model = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    assert model["oneOf"] == [{"required": ["postId"]}, {"required": ["profileId"]}]
    for status in ("409", "422"):
        assert status in routes[("POST", "/api/v1/boards/{boardId}/items")]["responses"]


async def test_parallel_creations_cannot_pass_the_board_limit(
    client: httpx.AsyncClient, db, monkeypatch
) -> None:
    import asyncio

    _, key = await create_account(db)
    monkeypatch.setattr(service, "MAX_BOARDS", 3)
    answers = await asyncio.gather(*(
        client.post("/api/v1/boards", json={"name": f"b{i}"}, headers=auth(key)) for i in range(6)
    ))
    assert sorted(r.status_code for r in answers) == [200] * 3 + [409] * 3
    assert await count(db, "boards") == 3


async def test_parallel_saves_of_one_post_make_one_item(client: httpx.AsyncClient, db) -> None:
    import asyncio

    _, key = await create_account(db)
    _, posts = await catalog(db)
    board = await create_board(client, key)
    answers = await asyncio.gather(*(
        client.post(f"/api/v1/boards/{board['id']}/items", json={"postId": posts[0]},
                    headers=auth(key)) for _ in range(5)
    ))
    assert all(r.status_code == 200 for r in answers)
    assert sorted(r.json()["created"] for r in answers) == [False] * 4 + [True]
    assert len({r.json()["item"]["id"] for r in answers}) == 1
    assert await count(db, "board_items") == 1


@pytest.mark.parametrize("name", ["", " ", "a", " a ", "ab", "x" * 100, "x" * 101,
                                  "  " + "x" * 100 + "\n", "a\tb"])
def test_the_documented_name_pattern_is_the_rule_the_api_applies(name: str) -> None:
    import re

    from pydantic import ValidationError

    from sors.boards.schemas import BoardIn

    pattern = BoardIn.model_json_schema()["properties"]["name"]["pattern"]
    try:
        BoardIn.model_validate({"name": name})
        accepted = True
    except ValidationError:
        accepted = False
    assert bool(re.match(pattern, name)) == accepted
