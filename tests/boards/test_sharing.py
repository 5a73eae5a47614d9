"""A board's share link: anyone reads it without a key (JSON or CSV) while it is live;
revoking kills it (410), sharing again makes a new link and the old one stays dead; a
tampered or foreign token is 404; nothing is charged."""

from __future__ import annotations

import httpx

from sors.boards import service
from sors.kit.security import Signer
from tests.boards.helpers import catalog, count, create_board, save
from tests.factories import auth, balance_and_ledger_sum, create_account


def _path(url: str) -> str:
    return url[url.index("/api/v1/"):]


async def test_a_shared_board_reads_without_a_key_until_revoked(
    client: httpx.AsyncClient, db, settings
) -> None:
    account_id, key = await create_account(db, credits=3)
    h = auth(key)
    _, posts = await catalog(db)
    board = await create_board(client, key, "For the client")
    await save(client, key, board["id"], postId=posts[0], note="look at this one")

    r = await client.post(f"/api/v1/boards/{board['id']}/share", headers=h)
    assert r.status_code == 200, r.text
    share = r.json()
    assert share["url"].startswith(settings.base_url.rstrip("/") + "/api/v1/shared/boards/")
    # Sharing again answers the live link.
    assert (await client.post(f"/api/v1/boards/{board['id']}/share", headers=h)).json() == share
    got = (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).json()
    assert got["share"] == share
    assert (await client.get("/api/v1/boards", headers=h)).json()["results"][0]["share"] == share

    public = await client.get(_path(share["url"]))  # no key
    assert public.status_code == 200, public.text
    body = public.json()
    assert body["name"] == "For the client" and body["itemCount"] == 1
    assert body["items"][0]["note"] == "look at this one"
    assert body["items"][0]["post"]["id"] == posts[0]
    assert "share" not in body and "url" not in body
    as_csv = await client.get(_path(share["url"]), headers={"Accept": "text/csv"})
    assert as_csv.status_code == 200 and posts[0] in as_csv.text
    # The link is read-only: it takes no other method.
    assert (await client.delete(_path(share["url"]))).status_code == 405

    r = await client.delete(f"/api/v1/boards/{board['id']}/share", headers=h)
    assert r.status_code == 200 and r.json() == {"id": board["id"], "share": None}
    gone = await client.get(_path(share["url"]))
    assert gone.status_code == 410 and gone.json()["code"] == "share_revoked"
    assert (await client.get(f"/api/v1/boards/{board['id']}", headers=h)).json()["share"] is None

    again = (await client.post(f"/api/v1/boards/{board['id']}/share", headers=h)).json()
    assert again["url"] != share["url"]
    assert (await client.get(_path(again["url"]))).status_code == 200
    assert (await client.get(_path(share["url"]))).status_code == 410  # the old one stays dead

    await client.delete(f"/api/v1/boards/{board['id']}", headers=h)
    assert (await client.get(_path(again["url"]))).status_code == 404
    assert await balance_and_ledger_sum(db, account_id) == (3, 3)


async def test_tampered_and_foreign_tokens_are_404(client: httpx.AsyncClient, db, settings) -> None:
    _, key = await create_account(db)
    board = await create_board(client, key)
    shared = await client.post(f"/api/v1/boards/{board['id']}/share", headers=auth(key))
    url = shared.json()["url"]
    token = url.rsplit("/", 1)[1]
    flipped = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    forged = Signer("not the server's secret").sign(
        service.SHARE_PURPOSE, {"b": board["id"], "n": "x"})
    # A token of another purpose (an alert's stop link) signed by this server.
    other = Signer(settings.resolved_secret_key).sign("alert-stop", {"b": board["id"], "n": "x"})
    for bad in (flipped, forged, other, "nonsense"):
        r = await client.get(f"/api/v1/shared/boards/{bad}")
        assert r.status_code == 404 and r.json()["code"] == "not_found", bad
    assert (await client.get(f"/api/v1/shared/boards/{token}")).status_code == 200
    assert await count(db, "boards") == 1


async def test_the_share_route_is_keyless_and_declared(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/api/v1/openapi.json")).json()
    op = doc["paths"]["/api/v1/shared/boards/{token}"]["get"]
    assert op["operationId"] == "get_shared_board" and not op.get("security")
    assert {"404", "410", "422", "429"} <= set(op["responses"]) and "401" not in op["responses"]
    assert set(op["responses"]["200"]["content"]) == {
        "application/json", "text/csv", "text/html"}
