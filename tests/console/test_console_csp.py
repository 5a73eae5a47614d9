"""Every HTML page served from the service's origin sends a Content-Security-Policy: the
console's own (scripts and styles from the app only, no inline code, never framed), which
its pages satisfy as written (no inline script, style attribute or event handler; the
browser suite checks that Chromium refuses nothing), and a script-free one on the alert
links' pages."""

from __future__ import annotations

import re

from sors.alerts.links import STOP_PURPOSE
from tests.console.conftest import sign_in

CONSOLE_PAGES = ("/app/outliers", "/app/trends", "/app/rising", "/app/breakouts",
                 "/app/trending", "/app/crawl", "/app/tracking", "/app/alerts", "/app/boards",
                 "/app/credits", "/app/plan", "/app/team")
INLINE_CODE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=|javascript:", re.I)


def _policy(header: str) -> dict[str, str]:
    return {d.split()[0]: d.strip() for d in header.split(";") if d.strip()}


async def test_console_pages_send_a_strict_policy_they_satisfy(world, account, browser_client):
    signin = await browser_client.get("/app/signin")
    _, key = account
    await sign_in(browser_client, key)
    pages = [signin] + [await browser_client.get(p) for p in CONSOLE_PAGES]
    for r in pages:
        assert r.status_code == 200, r.url
        policy = _policy(r.headers["content-security-policy"])
        assert policy["script-src"] == "script-src 'self'", r.url
        assert policy["style-src"] == "style-src 'self'", r.url
        assert policy["frame-ancestors"] == "frame-ancestors 'none'"
        assert "unsafe" not in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
        assert not INLINE_CODE.search(r.text), (r.url, INLINE_CODE.search(r.text))
    # htmx comes from the app itself, as the policy allows.
    assert '<script src="/app/static/htmx.min.js"' in pages[1].text
    js = await browser_client.get("/app/static/htmx.min.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")


async def test_alert_link_pages_run_no_script(world, browser_client):
    token = world.app.state.signer.sign(STOP_PURPOSE, {"alerts": ["alr_none"]})
    for path in (f"/alerts/stop/{token}", "/alerts/stop/not-a-valid-token"):
        r = await browser_client.get(path)
        policy = _policy(r.headers["content-security-policy"])
        assert policy["default-src"] == "default-src 'none'", path
        assert "script-src" not in policy and r.headers["referrer-policy"] == "no-referrer"
        assert "<script" not in r.text
