"""The console over HTTP: sessions, CSRF, and the same charges as the API."""

from __future__ import annotations

import re
import time

import httpx
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from sors.accounts import service as accounts
from sors.console.auth import COOKIE, PURPOSE, SESSION_MAX_AGE
from tests.console.conftest import csrf_of, sign_in
from tests.factories import auth, balance_and_ledger_sum


async def test_sign_in_sets_a_strict_httponly_cookie_without_the_key(
    world, account, browser_client
):
    _, key = account
    r = await sign_in(browser_client, key)
    assert r.status_code == 303 and r.headers["location"] == "/app/outliers"
    cookie = r.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert "secure" not in cookie.lower()  # plain http here; https adds Secure
    assert key not in cookie and key[5:] not in cookie
    page = await browser_client.get("/app/outliers")
    assert page.status_code == 200 and "Outliers" in page.text
    assert key not in page.text


async def test_over_https_the_cookie_is_secure_and_foreign_posts_are_refused(world, account):
    _, key = account
    transport = httpx.ASGITransport(app=world.app, client=("127.0.0.1", 5557))
    async with httpx.AsyncClient(transport=transport, base_url="https://console.test") as c:
        r = await c.post("/app/signin", data={"api_key": key},
                         headers={"Origin": "https://evil.test"})
        assert r.status_code == 403 and "set-cookie" not in r.headers
        r = await c.post("/app/signin", data={"api_key": key},
                         headers={"Origin": "https://console.test"})
        assert r.status_code == 303 and "; secure" in r.headers["set-cookie"].lower()


async def test_wrong_key_is_refused(world, browser_client):
    r = await sign_in(browser_client, "sors_" + "x" * 43)
    assert r.status_code == 401 and "unknown or revoked" in r.text
    assert COOKIE not in r.headers.get("set-cookie", "")
    assert (await browser_client.get("/app/outliers")).headers["location"].startswith(
        "/app/signin?reason=signed_out")


async def test_expired_and_forged_sessions_sign_out(world, account, browser_client):
    _, key = account
    await sign_in(browser_client, key)
    value = browser_client.cookies.get(COOKIE)

    class SignedLongAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - SESSION_MAX_AGE - 5

    payload = world.app.state.signer.verify(PURPOSE, value, max_age=60)
    old = URLSafeTimedSerializer(world.app.state.runtime.settings.resolved_secret_key,
                                 salt=f"sors.{PURPOSE}", signer=SignedLongAgo).dumps(payload)
    _replace_cookie(browser_client, old)
    r = await browser_client.get("/app/credits")
    assert r.status_code == 303 and "reason=expired" in r.headers["location"]
    _replace_cookie(browser_client, value[:-2] + "xx")
    r = await browser_client.get("/app/credits")
    assert "reason=invalid" in r.headers["location"]


def _replace_cookie(client: httpx.AsyncClient, value: str) -> None:
    domain = next((c.domain for c in client.cookies.jar if c.name == COOKIE), "testserver.local")
    client.cookies.clear()
    client.cookies.set(COOKIE, value, domain=domain, path="/app")


async def test_revoked_key_signs_the_console_out(world, account, browser_client):
    _, key = account
    await sign_in(browser_client, key)
    assert (await browser_client.get("/app/credits")).status_code == 200
    async with world.db.transaction() as s:
        keys = await accounts.list_keys(s)
        mine = next(k for k in keys if key.startswith(k.prefix))
        await accounts.revoke_key(s, mine.id, world.app.state.runtime.now())
    world.app.state.key_cache.clear()  # a revocation reaches every process within 1 s
    r = await browser_client.get("/app/credits")
    assert r.status_code == 303 and "reason=revoked" in r.headers["location"]
    assert COOKIE in r.headers["set-cookie"] and "max-age=0" in r.headers["set-cookie"].lower()


async def test_post_without_csrf_is_refused_and_changes_nothing(world, account, browser_client):
    account_id, key = account
    await sign_in(browser_client, key)
    before = await balance_and_ledger_sum(world.db, account_id)
    r = await browser_client.post("/app/crawl", data={"platform": "tiktok", "handle": "nocsrf"})
    assert r.status_code == 403 and "CSRF" in r.text
    r = await browser_client.post("/app/crawl", data={"platform": "tiktok", "handle": "nocsrf",
                                                      "csrf_token": "0" * 64})
    assert r.status_code == 403
    assert await balance_and_ledger_sum(world.db, account_id) == before
    r = await browser_client.post("/app/signout")
    assert r.status_code == 403  # signing out is a state change too


async def test_sign_out_ends_the_session(world, account, browser_client):
    _, key = account
    await sign_in(browser_client, key)
    page = await browser_client.get("/app/credits")
    r = await browser_client.post("/app/signout", data={"csrf_token": csrf_of(page.text)})
    assert r.status_code == 303 and r.headers["location"] == "/app/signin?reason=bye"
    assert (await browser_client.get("/app/credits")).status_code == 303


async def _ledger(client: httpx.AsyncClient, key: str) -> list[tuple[str, int, str | None]]:
    body = (await client.get("/api/v1/credits/ledger?limit=200", headers=auth(key))).json()
    return [(e["kind"], e["credits"], e["skill"]) for e in reversed(body["results"])
            if e["kind"] != "grant"]


async def test_console_actions_charge_exactly_what_the_same_api_calls_do(
    world, browser_client, client_pair
):
    (console_id, console_key), (api_id, api_key) = client_pair
    c = browser_client
    await sign_in(c, console_key)
    api = httpx.AsyncClient(transport=httpx.ASGITransport(app=world.app), base_url="http://t")
    h = auth(api_key)

    # A search with filters, one of its posts, a profile, trends, trending.
    await c.get("/app/outliers", params={"platforms": "tiktok", "minOutlierScore": "1.5"})
    search = (await api.post("/api/v1/search/content", headers=h,
                             json={"platforms": ["tiktok"], "minOutlierScore": 1.5})).json()
    post = search["results"][0]
    page = await c.get(f"/app/posts/{post['id']}", params={"chart": "1"})
    assert page.status_code == 200 and "<svg" in page.text and 'data-charged="2"' in page.text
    await api.get(f"/api/v1/posts/{post['id']}", headers=h)
    await api.get(f"/api/v1/posts/{post['id']}/history", headers=h)
    # The CSV export of a search with a score method.
    csv = await c.get("/app/outliers.csv", params={"scoreMethod": "median", "pageSize": "5"})
    assert csv.headers["content-type"].startswith("text/csv") and csv.text.count("\n") >= 2
    assert csv.headers["x-credits-charged"] == "1"
    await api.post("/api/v1/search/content", headers={**h, "Accept": "text/csv"},
                   json={"scoreMethod": "median", "pageSize": 5})
    await c.get(f"/app/profiles/{post['profile_id']}")
    await api.get(f"/api/v1/profiles/{post['profile_id']}", headers=h)
    await api.get("/api/v1/tracking", headers=h)  # the profile page shows the tracking state
    await c.get("/app/trends", params={"query": "the"})
    await api.post("/api/v1/trends", headers=h, json={"query": "the"})
    # Paid actions: a transcript (queued), a crawl of a new profile, tracking, an alert.
    csrf = csrf_of(page.text)
    await c.post(f"/app/posts/{post['id']}/transcript", data={"csrf_token": csrf,
                                                              "form_id": "form-aaaaaaaa"})
    await api.post("/api/v1/transcriptions", headers=h, json={"postId": post["id"]})
    await c.post("/app/crawl", data={"csrf_token": csrf, "platform": "youtube",
                                     "handle": "consoleledger", "form_id": "form-bbbbbbbb"})
    await api.post("/api/v1/crawls", headers=h, json={"platform": "youtube",
                                                      "handle": "consoleledger"})
    await c.post(f"/app/profiles/{post['profile_id']}/track",
                 data={"csrf_token": csrf, "frequency": "weekly"})
    await api.post("/api/v1/tracking", headers=h, json={"profileId": post["profile_id"],
                                                        "frequency": "weekly"})
    # A double-submitted form replays instead of paying twice.
    r = await c.post(f"/app/posts/{post['id']}/media", data={"csrf_token": csrf,
                                                             "form_id": "form-cccccccc"})
    r2 = await c.post(f"/app/posts/{post['id']}/media", data={"csrf_token": csrf,
                                                              "form_id": "form-cccccccc"})
    assert r.status_code == r2.status_code == 303
    await api.post("/api/v1/posts/media", headers=h, json={"postId": post["id"]})
    await api.aclose()

    console_ledger = await _ledger(c, console_key)
    api_ledger = await _ledger(c, api_key)
    assert console_ledger == api_ledger
    assert sum(e[1] for e in console_ledger) < -50  # it did charge: search, post, crawl…
    for account_id in (console_id, api_id):
        balance, ledger_sum = await balance_and_ledger_sum(world.db, account_id)
        assert balance == ledger_sum


async def test_pages_show_costs_before_and_charges_after(world, account, browser_client):
    _, key = account
    await sign_in(browser_client, key)
    page = await browser_client.get("/app/outliers")
    assert 'id="search-cost">costs 1 credit<' in page.text
    page = await browser_client.get("/app/outliers", params={"query": "the"})
    assert re.search(r'data-charged="1"', page.text) and 'data-balance="999"' in page.text


async def test_bad_filter_shows_the_api_problem_and_charges_nothing(world, account, browser_client):
    account_id, key = account
    await sign_in(browser_client, key)
    page = await browser_client.get("/app/outliers", params={"minViews": "lots"})
    assert page.status_code == 422 and "minViews" in page.text
    assert (await balance_and_ledger_sum(world.db, account_id))[0] == 1000


async def test_the_operators_credits_page_shows_the_sources_and_no_one_elses(
    world, account, browser_client, db
):
    from sqlalchemy import update

    from sors.accounts.models import Account

    account_id, key = account
    await sign_in(browser_client, key)
    page = await browser_client.get("/app/credits")
    assert page.status_code == 200 and 'id="sources"' not in page.text
    async with db.transaction() as s:
        await s.execute(update(Account).where(Account.id == account_id).values(is_operator=True))
    try:
        page = await browser_client.get("/app/credits")
        assert 'id="sources"' in page.text
        for platform in ("tiktok", "instagram", "youtube"):
            assert f'data-platform="{platform}"' in page.text
        assert "sors doctor" in page.text and "fix:" in page.text
    finally:
        async with db.transaction() as s:
            await s.execute(update(Account).where(Account.id == account_id)
                            .values(is_operator=False))


async def test_more_like_this_on_a_post_page_lists_other_creators_posts(
    world, account, browser_client, db
):
    from tests.factories.world import rows

    _, key = account
    await sign_in(browser_client, key)
    [post] = await rows(db, "SELECT p.id, p.profile_id FROM posts p JOIN post_embeddings e "
                            "ON e.post_id = p.id ORDER BY p.id LIMIT 1")
    page = await browser_client.get(f"/app/posts/{post['id']}")
    assert f'href="/app/outliers?similarTo={post["id"]}&amp;timeFrame=all_time"' in page.text
    similar = await browser_client.get("/app/outliers",
                                       params={"similarTo": post["id"], "timeFrame": "all_time"})
    assert similar.status_code == 200 and 'id="similar-note"' in similar.text
    results = similar.text.split('id="similar-note"')[1].split("</p>", 1)[1]
    assert f'/app/posts/{post["id"]}"' not in results  # never the post itself
    assert results.count('href="/app/posts/pst_') >= 3  # other creators' posts


async def test_a_search_by_meaning_about_nothing_held_says_so_above_the_closest(
    world, account, browser_client, db
):
    from tests.factories.world import scalar

    _, key = account
    await sign_in(browser_client, key)
    far = await browser_client.get("/app/outliers", params={
        "query": "tax deductions for a home office", "semantic": "on", "timeFrame": "all_time"})
    assert far.status_code == 200
    note = far.text.split('id="match-note">', 1)[1]
    assert note.startswith("No posts about this yet — closest:</p>")
    assert note.count('href="/app/posts/pst_') >= 3  # the closest still follow
    # A query about what a post says: no note.
    caption = await scalar(db, "SELECT left(p.caption, 120) FROM posts p JOIN post_embeddings e "
                               "ON e.post_id = p.id ORDER BY p.id LIMIT 1")
    near = await browser_client.get("/app/outliers", params={
        "query": caption, "semantic": "on", "timeFrame": "all_time"})
    assert near.status_code == 200 and 'id="results"' in near.text
    assert 'id="match-note"' not in near.text


async def test_the_post_page_says_which_growth_milestones_were_not_measured(
    world, account, browser_client
):
    from tests.factories.world import scalar

    _, key = account
    await sign_in(browser_client, key)
    # A post first crawled days after it was published (the weekly crawls of the seed).
    post_id = await scalar(
        world.db,
        "SELECT p.id FROM posts p JOIN post_stats st ON st.post_id = p.id GROUP BY p.id"
        " HAVING min(st.crawled_at) - p.published_at > interval '2 days'"
        " AND count(*) >= 2 ORDER BY p.id LIMIT 1",
    )
    page = await browser_client.get(f"/app/posts/{post_id}", params={"chart": "1"})
    assert page.status_code == 200, page.text
    shown = re.search(r'<span id="milestones">(.*?)</span>', page.text, re.S)
    assert shown is not None
    assert "1h: not measured (first snapshot too late)" in shown.group(1)
    assert "24h: not measured (first snapshot too late)" in shown.group(1)


async def test_young_posts_on_a_profile_carry_no_plain_score_badge(world, account, browser_client):
    _, key = account
    await sign_in(browser_client, key)
    api = httpx.AsyncClient(transport=httpx.ASGITransport(app=world.app), base_url="http://t")
    young = None
    profiles = await api.post("/api/v1/search/profiles", json={"pageSize": 100},
                              headers=auth(key))
    for prof in profiles.json()["results"]:
        rec = (await api.get(f"/api/v1/profiles/{prof['id']}", headers=auth(key))).json()
        young = next((p for p in rec["recent_posts"] if p["score_status"] != "mature"), None)
        if young is not None:
            break
    assert young is not None, "the seeded world has no post younger than 48 h"
    page = await browser_client.get(f"/app/profiles/{young['profile_id']}")
    assert page.status_code == 200
    card = re.search(rf'<article class="card" data-post="{young["id"]}">(.*?)</article>',
                     page.text, re.S)
    assert card is not None
    badge = re.search(r'<span class="badge([^"]*)"[^>]*>([^<]*)</span>', card.group(1))
    assert badge is not None and "young" in badge.group(1)
    if young["score_status"] == "too_young":
        assert badge.group(2) == "new"
    else:
        assert badge.group(2).endswith(" h")
        assert badge.group(2).startswith(f"{young['age_adjusted_score']['score']:.1f}×")


async def test_the_ledger_reads_human_times_and_names_each_skill_once(
    world, account, browser_client
):
    _, key = account
    await sign_in(browser_client, key)
    page = await browser_client.get("/app/outliers", params={"platforms": "tiktok"})
    assert page.status_code == 200
    ledger = await browser_client.get("/app/credits")
    rows = re.findall(r'<tr data-entry="[^"]+" data-kind="charge">(.*?)</tr>', ledger.text, re.S)
    assert rows, "no charge in the ledger"
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        when = re.sub(r"<[^>]+>", "", cells[0])
        assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2} UTC", when), when
        what = re.sub(r"<[^>]+>", "", cells[4]).split()
        assert what and what[0] != (what[1] if len(what) > 1 else None), what
