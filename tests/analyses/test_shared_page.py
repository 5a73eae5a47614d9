"""A board's share link as the page a strategist sends a client: the saved analysis is on it
(its summary, hook and findings) with the score explained, nothing of the account is, and a
program still gets JSON. (The page in a real browser: tests/console/test_boards_browser.py.)"""

from __future__ import annotations

import html

import httpx

from tests.boards.helpers import create_board, save
from tests.factories import auth, create_account

from .support import creator
from .test_api import analyse


async def test_the_share_page_shows_the_saved_analysis_and_nothing_of_the_account(
    runtime, client: httpx.AsyncClient, db, app
) -> None:
    _, outliers = await creator(db)
    account_id, key = await create_account(db, credits=100, email="strategist@example.com")
    a = (await analyse(client, runtime, key, outliers[-1], app))["analysis"]
    board = await create_board(client, key, "Pitch for Acme")
    await save(client, key, board["id"], postId=outliers[-1], note="the hook <b>asks</b>")
    share = (await client.post(f"/api/v1/boards/{board['id']}/share", headers=auth(key))).json()
    path = share["url"][share["url"].index("/api/v1/"):]

    r = await client.get(path, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-store"
    assert "script-src" not in r.headers["content-security-policy"]
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["referrer-policy"] == "no-referrer"
    page = r.text
    shown = html.unescape(page)  # what a reader sees
    assert "Pitch for Acme" in page and "Why it worked" in page
    assert a["summary"] in shown and a["hook"]["text"] in shown
    assert a["findings"] and all(f["text"] in shown for f in a["findings"])
    # The score, explained with the creator's average and how many posts it spans.
    assert "× = " in page and "views ÷ " in page and "average of " in page
    # The note is text, never markup.
    assert "the hook &lt;b&gt;asks&lt;/b&gt;" in page and "<b>asks</b>" not in page
    assert "<script" not in page
    for secret in ("strategist@example.com", account_id, key, board["id"], "/app/",
                   "creditsCharged", "balance"):
        assert secret not in page, secret

    # A program still gets the JSON; a revoked link is a short page for a browser.
    r = await client.get(path, headers={"Accept": "application/json"})
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["name"] == "Pitch for Acme"
    await client.delete(f"/api/v1/boards/{board['id']}/share", headers=auth(key))
    r = await client.get(path, headers={"Accept": "text/html"})
    assert r.status_code == 410 and "Share link revoked" in r.text
    assert "Pitch for Acme" not in r.text
