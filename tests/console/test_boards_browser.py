"""Boards in a real headless Chromium: "Save to board" on a post card (making the board on
the way) and on a profile page, the board page with its cards and notes, a read-only link
opened without a session and revoked, removing an item, deleting the board; and none of it
charged a credit."""

from __future__ import annotations

import os
from typing import Any

import pytest

from sors.kit.db import Database
from tests.console import browser
from tests.console.test_browser import driver, find, flash, load, server, shot, wait  # noqa: F401
from tests.factories import create_account
from tests.factories.world import scalar

pytestmark = pytest.mark.skipif(
    browser.browser_available() is not None and not os.environ.get("CI"),
    reason=str(browser.browser_available()),
)
CREDITS = 50


@pytest.fixture(scope="module")
async def board_key(world) -> tuple[str, str]:
    return await create_account(world.db, credits=CREDITS, email="boards@example.com")


def _sign_in(driver, server: str, key: str) -> None:  # noqa: F811
    driver.get(server + "/app")
    wait(driver, lambda d: "/app/signin" in d.current_url)
    find(driver, "#api_key").send_keys(key)
    load(driver, find(driver, "#signin"))
    wait(driver, lambda d: "/app/signin" not in d.current_url)


def _by(css: str):
    from selenium.webdriver.common.by import By

    return By.CSS_SELECTOR, css


async def _charges(db: Database, account_id: str) -> dict[str, Any]:
    total = await scalar(db, "SELECT coalesce(sum(-delta), 0) FROM ledger_entries "
                             "WHERE account_id = :a AND kind = 'charge'", a=account_id)
    boards = await scalar(db, "SELECT count(*) FROM ledger_entries WHERE account_id = :a "
                              "AND skill LIKE '%board%'", a=account_id)
    return {"total": int(total), "board_rows": int(boards)}


async def test_save_posts_and_profiles_to_a_board_share_it_and_delete_it(
    server, driver, board_key, world  # noqa: F811
) -> None:
    account_id, key = board_key
    _sign_in(driver, server, key)

    # A post card (Trending, free): its "Save to board" makes a board on the way.
    driver.get(server + "/app/trending")
    first = wait(driver, lambda d: d.find_element(*_by(".card[data-post]")))
    post_id = first.get_attribute("data-post")
    load(driver, first.find_element(*_by("a.save")))
    assert post_id in find(driver, "#save-target").text
    assert find(driver, "#s-board").get_attribute("value") == ""  # no board yet: a new one
    find(driver, "#s-name").send_keys("Client pitch")
    find(driver, "#s-note").send_keys("great hook in the first second")
    load(driver, find(driver, "#save-item"))
    assert "Saved to the board" in wait(driver, lambda d: flash(d))
    assert find(driver, "#board-name").text == "Client pitch"
    item = find(driver, f"#board-posts .card[data-post='{post_id}']")
    assert item.is_displayed()
    assert "great hook in the first second" in find(driver, "#board-posts .note").text

    # A profile page's "Save to board" (the page itself is the paid get_profile).
    load(driver, item.find_element(*_by(".meta a[href^='/app/profiles/']")))
    load(driver, find(driver, "#save-profile"))
    assert "Client pitch" in find(driver, "#s-board option:checked").text
    load(driver, find(driver, "#save-item"))
    assert "Saved to the board" in flash(driver)
    assert len(driver.find_elements(*_by("#board-profiles tbody tr[data-item]"))) == 1
    board_url = driver.current_url
    shot(driver, "board")

    # Saving the same post again finds it there.
    driver.get(server + f"/app/boards/save?postId={post_id}")
    load(driver, find(driver, "#save-item"))
    assert "Already on the board" in flash(driver)

    # A read-only link anyone can open (no key, no session), until it is revoked.
    load(driver, find(driver, "#share-board"))
    assert "Share link ready" in flash(driver)
    share_url = find(driver, "#share-url").get_attribute("href")
    assert "/api/v1/shared/boards/" in share_url
    # The browser gets a page a client reads on a phone, signed out.
    driver.delete_all_cookies()
    driver.set_window_size(390, 844)
    driver.get(share_url)
    assert find(driver, "#board-name").text == "Client pitch"
    card = find(driver, "article.post .who")
    assert card.is_displayed() and card.text.startswith("@")
    thumb = find(driver, "article.post img.thumb")
    wait(driver, lambda d: d.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth > 0", thumb))
    score = find(driver, "article.post .score").text
    assert "× = " in score and " views ÷ " in score and " average of " in score, score
    assert "great hook in the first second" in find(driver, "article.post .note").text
    assert len(driver.find_elements(*_by("article.profile"))) == 1
    # Nothing of the account beyond the board: no email, account, key or console link.
    page = driver.page_source
    for secret in ("boards@example.com", account_id, key, "/app/"):
        assert secret not in page, secret
    assert driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth")  # no side scroll
    shot(driver, "shared-board")
    driver.set_window_size(1280, 1000)
    _sign_in(driver, server, key)
    driver.get(board_url)
    load(driver, find(driver, "#revoke-share"))
    assert "Share link revoked" in flash(driver)
    assert not driver.find_elements(*_by("#share-url"))
    driver.get(share_url)
    assert find(driver, "h1").text == "Share link revoked"
    assert not driver.find_elements(*_by("article"))

    # Remove the post; the Boards page lists the board; delete it.
    driver.get(board_url)
    load(driver, find(driver, "#board-posts button.danger"))
    assert "Removed from the board" in flash(driver)
    assert not driver.find_elements(*_by("#board-posts .card"))
    find(driver, "nav a[href='/app/boards']").click()
    row = wait(driver, lambda d: d.find_element(*_by("#board-list tbody tr[data-board]")))
    assert "Client pitch" in row.text and "1" in row.text
    shot(driver, "boards")
    load(driver, row.find_element(*_by("a")))
    load(driver, find(driver, "#delete-board"))
    assert "Board deleted" in flash(driver)
    assert "No boards yet" in find(driver, "#board-list").text

    # Boards are free: the only charge was the profile page.
    assert await _charges(world.db, account_id) == {"total": 1, "board_rows": 0}
    # The board pages satisfied the console's Content-Security-Policy.
    assert [v for v in browser.csp_violations(driver) if "/app/" in v] == []
