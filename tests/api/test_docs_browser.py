"""The docs page in a real headless Chromium (Debian's, no network): Swagger UI renders from
the app's own assets, the Authorize button takes a key, and "Try it out" on get_credit_balance
answers 200 with the balance."""

from __future__ import annotations

import pytest

from tests.api.conftest import Served
from tests.console.browser import browser_available, chromium

pytestmark = pytest.mark.skipif(browser_available() is not None, reason=str(browser_available()))


def test_authorize_and_try_it_out(served: Served) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    gen = chromium()
    driver = next(gen)
    try:
        wait = WebDriverWait(driver, 60)
        driver.get(served.url + "/docs")
        op = wait.until(ec.presence_of_element_located(
            (By.ID, "operations-credits-get_credit_balance")))
        # Every operation of the document is on the page.
        assert len(driver.find_elements(By.CSS_SELECTOR, ".opblock")) >= 40

        driver.find_element(By.CSS_SELECTOR, "button.authorize").click()
        box = wait.until(lambda d: next(
            (c for c in d.find_elements(By.CSS_SELECTOR, ".auth-container")
             if "bearerAuth" in c.text), None))
        box.find_element(By.CSS_SELECTOR, "input").send_keys(served.key)
        box.find_element(By.CSS_SELECTOR, "button.authorize").click()
        wait.until(lambda d: "Logout" in box.text)
        driver.find_element(By.CSS_SELECTOR, "button.close-modal").click()

        op.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        wait.until(lambda d: op.find_elements(By.CSS_SELECTOR, "button.try-out__btn"))[0].click()
        wait.until(lambda d: op.find_elements(By.CSS_SELECTOR, "button.execute"))[0].click()
        status = wait.until(lambda d: op.find_elements(
            By.CSS_SELECTOR, ".live-responses-table tbody .response-col_status"))[0]
        assert status.text.strip().startswith("200"), status.text
        body = op.find_element(By.CSS_SELECTOR, ".live-responses-table .microlight").text
        assert '"balance": 10000000' in body
    finally:
        next(gen, None)
