"""The console's Plan page: subscribe through the local checkout, see the plan and its
limits against usage, cancel and resume — each an API call on the signed-in key."""

from __future__ import annotations

from tests.console.conftest import csrf_of, sign_in


async def test_subscribe_cancel_and_resume_from_the_plan_page(world, account, browser_client):
    _, key = account
    c = browser_client
    await sign_in(c, key)
    page = await c.get("/app/plan")
    assert page.status_code == 200 and "No subscription." in page.text
    assert 'id="subscribe-creator-month"' in page.text and 'aria-current="page"' in page.text

    r = await c.post("/app/plan/subscribe", data={
        "csrf_token": csrf_of(page.text), "planId": "creator", "interval": "month",
    })
    assert r.status_code == 303 and r.headers["location"].startswith("http://testserver/subscribe/")
    checkout = r.headers["location"].removeprefix("http://testserver")
    assert "$29.00 per month" in (await c.get(checkout)).text
    assert (await c.post(checkout + "/pay")).status_code == 200

    page = await c.get("/app/plan")
    assert 'data-plan="creator"' in page.text and 'data-status="trialing"' in page.text
    assert "Free trial until" in page.text and 'id="change-pro-month"' in page.text
    assert 'data-tracked="0"' in page.text and "the <strong>creator</strong> plan's" in page.text

    r = await c.post("/app/plan/cancel", data={"csrf_token": csrf_of(page.text)})
    assert r.status_code == 303
    page = await c.get("/app/plan")
    assert 'id="resume"' in page.text and ", ends " in page.text
    r = await c.post("/app/plan/resume", data={"csrf_token": csrf_of(page.text)})
    page = await c.get("/app/plan")
    assert 'id="cancel"' in page.text and ", renews " in page.text

    # Without the CSRF token nothing happens.
    r = await c.post("/app/plan/cancel", data={})
    assert r.status_code in (303, 403)
    assert 'id="cancel"' in (await c.get("/app/plan")).text


async def test_team_page_invites_and_removes_members(world, account, browser_client):
    _, key = account
    c = browser_client
    await sign_in(c, key)
    page = await c.get("/app/team")
    assert page.status_code == 200 and "Nobody yet." in page.text
    # The account has no plan with seats for others: the API's refusal shows.
    r = await c.post("/app/team/invite", data={
        "csrf_token": csrf_of(page.text), "email": "ana@example.com", "role": "member"})
    assert r.status_code == 303
    page = await c.get("/app/team")
    assert "Nobody yet." in page.text and "people in the workspace" in page.text
    # With the Pro plan (3 seats): invited, listed, removed.
    plan = await c.get("/app/plan")
    r = await c.post("/app/plan/subscribe", data={
        "csrf_token": csrf_of(plan.text), "planId": "pro", "interval": "month"})
    await c.post(r.headers["location"].removeprefix("http://testserver") + "/pay")
    page = await c.get("/app/team")
    assert 'id="seats">3<' in page.text
    await c.post("/app/team/invite", data={
        "csrf_token": csrf_of(page.text), "email": "ana@example.com", "role": "viewer"})
    page = await c.get("/app/team")
    assert "ana@example.com" in page.text and "invited" in page.text
    member_id = page.text.split('data-member="')[1].split('"')[0]
    r = await c.post(f"/app/team/{member_id}/remove", data={"csrf_token": csrf_of(page.text)})
    assert r.status_code == 303
    assert "Nobody yet." in (await c.get("/app/team")).text


async def test_the_role_table_holds_in_the_console(world, account, browser_client):
    """The console sends the API's own requests with the signed-in key, so the authorisation
    table holds there too: a viewer signed in cannot invite, subscribe or top up."""
    from sqlalchemy import text

    from tests.factories import create_member_key

    account_id, _ = account
    _, member_key = await create_member_key(world.db, account_id, role="viewer",
                                            email="member.console@example.com")
    c = browser_client
    await sign_in(c, member_key)
    page = await c.get("/app/team")
    await c.post("/app/team/invite", data={
        "csrf_token": csrf_of(page.text), "email": "self@example.com", "role": "owner"})
    plan = await c.get("/app/plan")
    r = await c.post("/app/plan/subscribe", data={
        "csrf_token": csrf_of(plan.text), "planId": "pro", "interval": "month"})
    assert "/subscribe/" not in r.headers.get("location", "")  # no checkout was opened
    credits = await c.get("/app/credits")
    r = await c.post("/app/credits/topup", data={
        "csrf_token": csrf_of(credits.text), "packId": "pack_s"})
    assert "/checkout/" not in r.headers.get("location", "")
    async with world.db.transaction() as s:
        invited = (await s.execute(text(
            "SELECT count(*) FROM members WHERE account_id = :a AND email = 'self@example.com'"
        ), {"a": account_id})).scalar()
        checkouts = (await s.execute(text(
            "SELECT count(*) FROM checkout_sessions WHERE account_id = :a"
        ), {"a": account_id})).scalar()
    assert (invited, checkouts) == (0, 0)
