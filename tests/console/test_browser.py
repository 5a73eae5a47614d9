"""The console in a real headless Chromium: sign in, search, a post and its chart, a
transcript queued and finished, a new profile crawled, an alert created, edited and deleted,
a top-up through the local checkout, sign out; and refusals (wrong key, expired session,
CSRF-less POST). Each page is photographed: set SORS_SCREENSHOT_DIR=docs/console to refresh
the README's pictures.

One server and one browser for the whole module; the tests run in file order and share what
they found (the post, the new profile) through `seen`.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from sors.console.auth import COOKIE, PURPOSE, SESSION_MAX_AGE
from tests.console import browser
from tests.factories import create_account

pytestmark = pytest.mark.skipif(
    browser.browser_available() is not None and not os.environ.get("CI"),
    reason=str(browser.browser_available()),
)

By: Any = None
seen: dict[str, Any] = {}
SHOTS = Path(os.environ.get("SORS_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="sors-shots-"))


@pytest.fixture(scope="module")
def server(world, settings) -> Iterator[str]:
    yield from browser.serve(settings)


@pytest.fixture(scope="module")
def driver(server) -> Iterator[Any]:
    global By
    from selenium.webdriver.common.by import By as _By

    By = _By
    yield from browser.chromium()


@pytest.fixture(scope="module")
async def key(world) -> str:
    account_id, api_key = await create_account(world.db, credits=500, email="me@example.com")
    seen["account_id"] = account_id
    return api_key


def wait(driver, condition, timeout: float = 30) -> Any:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # Mid-navigation the old document's nodes vanish under a lookup: retry, don't fail.
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(WebDriverException,)).until(condition)


def load(driver, element) -> None:
    """Clicks something that loads a new page and waits until the old one is gone, so the
    next lookup cannot see the previous page."""
    from selenium.webdriver.support import expected_conditions as ec

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait(driver, ec.staleness_of(old))


def find(driver, css: str):
    return driver.find_element(By.CSS_SELECTOR, css)


def shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.get_window_size()["width"]
    driver.set_window_size(width, min(max(height + 120, 700), 2400))
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    driver.set_window_size(width, 1000)


def job_finished(driver, timeout: float) -> str:
    """Waits for the htmx-polled job panel to reach a final state; returns that state."""
    panel = wait(driver, lambda d: d.find_elements(
        By.CSS_SELECTOR, ".job[data-status=completed], .job[data-status=failed]"), timeout)
    return f"{panel[0].get_attribute('data-status')}: {panel[0].text}"


def flash(driver) -> str:
    return find(driver, "#flash").text


def test_wrong_key_is_refused(server, driver, key) -> None:
    driver.get(server + "/app")
    wait(driver, lambda d: "/app/signin" in d.current_url)
    find(driver, "#api_key").send_keys("sors_" + "n" * 43)
    load(driver, find(driver, "#signin"))
    assert "unknown or revoked" in wait(driver, lambda d: find(d, "#error")).text
    shot(driver, "signin")


def test_sign_in_and_search_with_filters(server, driver, key) -> None:
    field = find(driver, "#api_key")
    field.clear()
    field.send_keys(key)
    load(driver, find(driver, "#signin"))
    wait(driver, lambda d: d.current_url.endswith("/app/outliers"))
    assert key not in driver.page_source
    assert driver.execute_script("return document.cookie") == ""  # httpOnly: not readable
    stored = driver.execute_script(
        "return JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")
    # htmx remembers only the current path; no key, no cached page HTML.
    assert key not in stored and "htmx-history-cache" not in stored, stored
    find(driver, "#pf-tiktok").click()
    find(driver, "#minOutlierScore").send_keys("1.2")
    find(driver, "#timeFrame").send_keys("1 month")
    find(driver, "#scoreMethod").send_keys("Median")
    find(driver, "#sortBy").send_keys("Views")
    load(driver, find(driver, "#search"))
    cards = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#results .card"))
    for part in ("sortBy=views", "platforms=tiktok", "timeFrame=one_month", "minOutlierScore=1.2",
                 "scoreMethod=median"):
        assert part in driver.current_url
    assert all(c.find_element(By.CSS_SELECTOR, ".plat").text.lower() == "tiktok" for c in cards)
    views = [c.find_element(By.CSS_SELECTOR, ".views").text for c in cards]
    assert views and all(v.endswith("views") for v in views)
    charged = find(driver, "#charged [data-charged]").get_attribute("data-charged")
    assert charged == "1" and find(driver, "#charged [data-balance]").text == "499"
    # A post older than a week has been through at least three of the world's crawls.
    seen["post_id"] = next(c.get_attribute("data-post") for c in cards
                           if _days_old(c.find_element(By.CSS_SELECTOR, ".age").text) >= 8)
    shot(driver, "outliers")


def _days_old(age: str) -> int:
    found = re.match(r"(\d+)(mo|d|y)\b", age)
    return int(found.group(1)) * {"d": 1, "mo": 30, "y": 365}[found.group(2)] if found else 0


def test_open_a_post_and_see_its_chart(server, driver, key) -> None:
    load(driver, find(driver, f".card[data-post={seen['post_id']}] .caption"))
    wait(driver, lambda d: "/app/posts/" in d.current_url)
    assert "costs 1 credit" in find(driver, "#growth .cost").text
    load(driver, find(driver, "#show-chart"))
    chart = wait(driver, lambda d: find(d, "#growth svg.chart"))
    assert find(driver, "#charged [data-charged]").text == "2 credits"  # the post + its history
    assert len(chart.find_elements(By.CSS_SELECTOR, "circle.dot")) >= 3  # a month-old post
    first_row = find(driver, "#scores").find_elements(By.CSS_SELECTOR, "tbody tr:first-child td")
    assert len(first_row) == 7
    seen["post_url"] = driver.current_url


def test_queue_a_transcript_and_see_it_complete(server, driver, key) -> None:
    cost = find(driver, "#act-transcript + .cost").text
    assert cost.startswith("costs 10 credits")
    load(driver, find(driver, "#act-transcript"))
    wait(driver, lambda d: "job=" in d.current_url)
    assert "Transcript: pending" in flash(driver) and "Charged 10 credits" in flash(driver)
    # htmx polls the job panel until the worker finishes it.
    state = job_finished(driver, 180)
    assert state.startswith("completed"), state
    load(driver, find(driver, "#job-post"))
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#transcript blockquote"))
    assert find(driver, "#transcript blockquote").text.strip()
    assert not find(driver, "#act-transcript").is_enabled()
    load(driver, find(driver, "#show-chart"))
    wait(driver, lambda d: find(d, "#growth svg.chart"))
    shot(driver, "post")


def test_crawl_a_new_profile_and_see_it(server, driver, key) -> None:
    driver.get(server + "/app/crawl")
    find(driver, "#platform").send_keys("youtube")
    find(driver, "#handle").send_keys("@browsernewcreator")
    load(driver, find(driver, "#crawl"))
    wait(driver, lambda d: "job=" in d.current_url)
    assert "Charged 40 credits" in flash(driver)
    state = job_finished(driver, 120)
    assert state.startswith("completed"), state
    shot(driver, "crawl")
    load(driver, find(driver, "#job-profile"))
    wait(driver, lambda d: "/app/profiles/" in d.current_url)
    assert find(driver, "#profile-handle").text.startswith("@browsernewcreator")
    assert find(driver, "#scatter svg.chart").find_elements(By.CSS_SELECTOR, "circle")
    seen["profile_url"] = driver.current_url
    load(driver, find(driver, "#track"))
    assert "Tracked" in wait(driver, lambda d: find(d, "#tracked")).text
    shot(driver, "profile")
    driver.get(server + "/app/tracking")
    assert "@browsernewcreator" in find(driver, "#tracked-list").text
    load(driver, find(driver, "#load-updates"))
    wait(driver, lambda d: find(d, "#feed-summary"))
    shot(driver, "tracking")


def test_create_edit_and_delete_an_alert(server, driver, key) -> None:
    driver.get(server + "/app/alerts")
    find(driver, "#a-platform").send_keys("youtube")
    find(driver, "#a-handle").send_keys("browsernewcreator")
    find(driver, "#a-email").send_keys("me@example.com")
    load(driver, find(driver, "#save-alert"))
    assert "Alert created" in wait(driver, lambda d: find(d, "#flash")).text
    row = find(driver, "#alert-list tbody tr[data-alert]")
    assert "@browsernewcreator" in row.text and "active" in row.text
    load(driver, row.find_element(By.LINK_TEXT, "Edit"))
    minimum = find(driver, "#a-min")
    minimum.clear()
    minimum.send_keys("4.5")
    load(driver, find(driver, "#save-alert"))
    assert "Alert updated" in wait(driver, lambda d: find(d, "#flash")).text
    assert "≥ 4.5×" in find(driver, "#alert-list tbody tr[data-alert]").text
    shot(driver, "alerts")
    load(driver, find(driver, "#alert-list button.danger"))
    assert "Alert deleted" in wait(driver, lambda d: find(d, "#flash")).text
    assert "ended (deleted)" in find(driver, "#alert-list tbody tr[data-alert]").text


def test_trends_and_trending(server, driver, key) -> None:
    driver.get(server + "/app/trends")
    find(driver, "#query").send_keys("the")
    load(driver, find(driver, "#trends-go"))
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".cards .card"))
    shot(driver, "trends")
    driver.get(server + "/app/trending")
    wait(driver, lambda d: find(d, "h1").text == "Trending")
    shot(driver, "trending")


def test_top_up_through_the_local_checkout(server, driver, key) -> None:
    driver.get(server + "/app/credits")
    before = int(find(driver, "#balance [data-balance]").text)
    load(driver, find(driver, "#topup-pack_s"))
    wait(driver, lambda d: "/checkout/" in d.current_url)
    shot(driver, "checkout")
    load(driver, find(driver, "form button"))
    load(driver, wait(driver, lambda d: find(d, "#back-to-console")))
    wait(driver, lambda d: d.current_url.endswith("/app/credits"))
    assert int(find(driver, "#balance [data-balance]").text) == before + 1500
    top = find(driver, "#ledger tbody tr")
    assert top.get_attribute("data-kind") == "topup" and "+1500" in top.text
    shot(driver, "credits")


def test_post_without_csrf_token_is_refused(server, driver, key) -> None:
    driver.get(server + "/app/crawl")
    driver.execute_script(
        "document.querySelector('form[action=\"/app/crawl\"] input[name=csrf_token]').remove()")
    find(driver, "#handle").send_keys("csrfless")
    load(driver, find(driver, "#crawl"))
    wait(driver, lambda d: find(d, "h1").text == "Refused")
    assert "CSRF" in find(driver, "main").text
    driver.get(server + "/app/credits")
    rows = driver.find_elements(By.CSS_SELECTOR, "#ledger tbody tr")
    assert not any("csrfless" in r.text for r in rows)


def test_phone_width_is_readable(server, driver, key) -> None:
    driver.set_window_size(390, 1000)
    try:
        driver.get(seen["post_url"])
        wide = driver.execute_script(
            "return document.documentElement.scrollWidth > window.innerWidth + 1")
        assert not wide, "the post page scrolls sideways on a phone"
        driver.get(server + "/app/outliers?platforms=youtube")
        shot(driver, "outliers-phone")
    finally:
        driver.set_window_size(1280, 1000)


def test_keyboard_reaches_the_search_form(server, driver, key) -> None:
    from selenium.webdriver.common.keys import Keys

    driver.get(server + "/app/outliers")
    body = find(driver, "body")
    body.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("class") == "skip"
    labels = driver.find_elements(By.CSS_SELECTOR, "form.filters label[for]")
    for label in labels:
        assert find(driver, "#" + label.get_attribute("for"))


def test_expired_session_is_refused(server, driver, key, settings) -> None:
    class SignedLongAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - SESSION_MAX_AGE - 5

    current = driver.get_cookie(COOKIE)["value"]
    payload = URLSafeTimedSerializer(settings.resolved_secret_key, salt=f"sors.{PURPOSE}").loads(
        current)
    old = URLSafeTimedSerializer(settings.resolved_secret_key, salt=f"sors.{PURPOSE}",
                                 signer=SignedLongAgo).dumps(payload)
    driver.delete_cookie(COOKIE)
    driver.add_cookie({"name": COOKIE, "value": old, "path": "/app", "httpOnly": True,
                       "sameSite": "Strict"})
    driver.get(server + "/app/credits")
    assert "expired" in wait(driver, lambda d: find(d, "#notice")).text
    assert "/app/signin" in driver.current_url


def test_sign_out(server, driver, key) -> None:
    driver.get(server + "/app/signin")
    find(driver, "#api_key").send_keys(key)
    load(driver, find(driver, "#signin"))
    wait(driver, lambda d: d.current_url.endswith("/app/outliers"))
    load(driver, find(driver, "#signout"))
    assert "signed out" in wait(driver, lambda d: find(d, "#notice")).text
    driver.get(server + "/app/credits")
    wait(driver, lambda d: "/app/signin" in d.current_url)
    assert driver.get_cookie(COOKIE) is None


def test_no_page_broke_the_content_security_policy(server, driver, key) -> None:
    # Every page this module visited, scripts (htmx) and styles included, satisfied the
    # policy the console sends: the browser refused nothing.
    assert browser.csp_violations(driver) == []
