"""One real server and one real headless Chromium for the console's browser suite.

The server is the whole app under uvicorn on a loopback port with the job worker in process
(crawls and transcriptions really run). The browser is Debian's `chromium` driven through
Debian's `chromedriver`: giving Selenium the driver's path skips Selenium Manager, so nothing
is downloaded at test time.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn

from sors.config import Settings

CHROMIUM = os.environ.get("SORS_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SORS_CHROMEDRIVER", "/usr/bin/chromedriver")


def browser_available() -> str | None:
    """Why the browser suite cannot run here, or None when it can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).is_file():
            return f"{path} missing: scripts/bootstrap.sh installs chromium and chromium-driver"
    return None


def serve(settings: Settings) -> Iterator[str]:
    from sors.app import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    app = create_app(settings.with_values(base_url=base), roles=("worker",))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           loop="asyncio"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def chromium() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="sors-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000", f"--user-data-dir={profile}",
                "--no-first-run", "--disable-extensions", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    # The browser's console messages, so a test can see what the page's CSP refused.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def csp_violations(driver) -> list[str]:
    """The Content-Security-Policy refusals the browser reported since the last call."""
    return [e["message"] for e in driver.get_log("browser")
            if "Content Security Policy" in e.get("message", "")]


def wait(driver, condition, timeout: float = 30) -> Any:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # Mid-navigation the old document's nodes vanish under a lookup: retry, don't fail.
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(WebDriverException,)).until(condition)


def find(driver, css: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def find_all(driver, css: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def load(driver, element) -> None:
    """Clicks something that loads a new page and waits until the old one is gone."""
    from selenium.webdriver.support import expected_conditions as ec

    old = find(driver, "html")
    element.click()
    wait(driver, ec.staleness_of(old))
