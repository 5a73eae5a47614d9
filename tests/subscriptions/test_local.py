"""Subscriptions with the local provider, end to end through HTTP: the checkout page, the
trial (no credits), every paid renewal granting the plan's credits once (a yearly one twelve
months at once), cancel and resume, plan changes."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import (  # noqa: F401 - sim_time_restored is a fixture
    rows,
    run_once,
    scalar,
    set_time,
    sim_time_restored,
)

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


def path_of(url: str) -> str:
    return url.removeprefix("http://testserver")


async def subscribe(
    client: httpx.AsyncClient, key: str, plan: str = "creator", interval: str = "month"
) -> dict:
    r = await client.post(
        "/api/v1/subscriptions/checkout",
        json={"planId": plan, "interval": interval},
        headers=auth(key),
    )
    assert r.status_code == 200, r.text
    link = r.json()
    page = await client.get(path_of(link["checkoutUrl"]))
    assert page.status_code == 200 and 'method="post"' in page.text
    paid = await client.post(path_of(link["checkoutUrl"]) + "/pay")
    assert paid.status_code == 200 and "subscription has started" in paid.text
    return link


async def status(client: httpx.AsyncClient, key: str) -> dict:
    r = await client.get("/api/v1/subscriptions", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def grants(db, account_id: str) -> list[dict]:
    return await rows(
        db,
        "SELECT delta, external_ref FROM ledger_entries WHERE account_id = :a AND kind = 'grant'"
        " ORDER BY id",
        a=account_id,
    )


async def test_price_list_points_at_the_plan_page_while_plans_are_sold(
    client: httpx.AsyncClient, db, settings
) -> None:
    subs = (await client.get("/api/v1/pricing")).json()["subscriptions"]
    assert subs == {"trialDays": 7, "subscribeUrl": "http://testserver/app/plan"}
    _, key = await create_account(db)
    settings.subscriptions.enabled = False
    try:
        subs = (await client.get("/api/v1/pricing")).json()["subscriptions"]
        assert subs["subscribeUrl"] is None
        r = await client.post(
            "/api/v1/subscriptions/checkout", json={"planId": "pro"}, headers=auth(key)
        )
        assert r.status_code == 404
    finally:
        settings.subscriptions.enabled = True


async def test_trial_grants_nothing_then_each_monthly_invoice_grants_once(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db)
    before = await status(client, key)
    assert before["planId"] is None and before["appliedPlanId"] is None

    link = await subscribe(client, key)
    assert (link["planId"], link["interval"], link["priceUsd"], link["trialDays"]) == (
        "creator", "month", 29, 7
    )
    s = await status(client, key)
    assert (s["status"], s["planId"], s["trialEnd"]) == (
        "trialing", "creator", "2026-08-10T09:00:00Z")
    assert s["appliedPlanId"] == "creator" and s["appliedBecause"] == "subscription"
    assert s["limits"] == {"watchlistLimit": 10, "followedProfileLimit": 25, "seats": 1}
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)  # none during the trial
    # Paying the checkout again changes nothing.
    again = await client.post(path_of(link["checkoutUrl"]) + "/pay")
    assert "already completed" in again.text
    assert await scalar(db, "SELECT count(*) FROM subscription_invoices") == 1

    # The trial ends: the first paid invoice grants the month's credits, once.
    await set_time(db, T0 + timedelta(days=7))
    await run_once(runtime)
    await run_once(runtime)
    assert await balance_and_ledger_sum(db, account_id) == (1000, 1000)
    s = await status(client, key)
    assert (s["status"], s["creditsGrantedThisPeriod"]) == ("active", 1000)
    assert (s["currentPeriodStart"], s["currentPeriodEnd"]) == (
        "2026-08-10T09:00:00Z", "2026-09-10T09:00:00Z"
    )
    # The next month's invoice grants the next month's credits.
    await set_time(db, T0 + timedelta(days=38))
    await run_once(runtime)
    assert await balance_and_ledger_sum(db, account_id) == (2000, 2000)
    refs = [g["external_ref"] for g in await grants(db, account_id)]
    assert len(refs) == len(set(refs)) == 2 and all(r.startswith("invoice:local:") for r in refs)
    invoices = await rows(
        db, "SELECT amount_cents, credits FROM subscription_invoices ORDER BY paid_at"
    )
    assert invoices == [
        {"amount_cents": 0, "credits": 0},
        {"amount_cents": 2900, "credits": 1000},
        {"amount_cents": 2900, "credits": 1000},
    ]


async def test_yearly_invoice_grants_twelve_months_at_once_and_cancel_ends_it(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db)
    await subscribe(client, key, "pro", "month")
    r = await client.post("/api/v1/subscriptions/cancel", headers=auth(key))
    assert r.status_code == 200 and r.json()["cancelAtPeriodEnd"] is True
    await set_time(db, T0 + timedelta(days=8))
    await run_once(runtime)
    assert (await status(client, key))["status"] == "canceled"
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)  # ended in its trial

    # A second subscription has no trial: its first (yearly) invoice is paid at once.
    link = await subscribe(client, key, "pro", "year")
    assert link["trialDays"] == 0 and link["priceUsd"] == 790
    assert await balance_and_ledger_sum(db, account_id) == (48000, 48000)  # 12 x 4,000
    s = await status(client, key)
    assert (s["status"], s["interval"], s["creditsGrantedThisPeriod"]) == ("active", "year", 48000)
    assert s["currentPeriodEnd"] == "2027-08-11T09:00:00Z"

    # Cancel, then take it back: it renews after the year.
    assert (await client.post("/api/v1/subscriptions/cancel", headers=auth(key))).status_code == 200
    r = await client.post("/api/v1/subscriptions/resume", headers=auth(key))
    assert r.status_code == 200 and r.json()["cancelAtPeriodEnd"] is False
    await set_time(db, datetime(2027, 8, 11, 9, 0, tzinfo=UTC))
    await run_once(runtime)
    assert await balance_and_ledger_sum(db, account_id) == (96000, 96000)


async def test_plan_change_grants_the_difference_on_its_invoice(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db)
    await subscribe(client, key, "creator")
    await set_time(db, T0 + timedelta(days=7))
    await run_once(runtime)
    assert await balance_and_ledger_sum(db, account_id) == (1000, 1000)
    r = await client.post(
        "/api/v1/subscriptions/change", json={"planId": "pro", "interval": "month"},
        headers=auth(key),
    )
    assert r.status_code == 200, r.text
    assert (r.json()["planId"], r.json()["creditsGrantedThisPeriod"]) == ("pro", 4000)
    assert await balance_and_ledger_sum(db, account_id) == (4000, 4000)  # 3,000 more
    # Back down: nothing granted, nothing taken.
    r = await client.post(
        "/api/v1/subscriptions/change", json={"planId": "creator"}, headers=auth(key)
    )
    assert r.status_code == 200 and r.json()["planId"] == "creator"
    assert await balance_and_ledger_sum(db, account_id) == (4000, 4000)


async def test_bad_requests_change_nothing(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    h = auth(key)
    for bad in ({"planId": "gold"}, {"planId": "pro", "interval": "week"}, {}):
        r = await client.post("/api/v1/subscriptions/checkout", json=bad, headers=h)
        assert r.status_code == 422, bad
    assert (await client.post("/api/v1/subscriptions/cancel", headers=h)).status_code == 404
    assert (
        await client.post("/api/v1/subscriptions/checkout", json={"planId": "pro"})
    ).status_code == 401
    # Two links opened before either is paid: the second cannot start a second subscription.
    spare = (
        await client.post("/api/v1/subscriptions/checkout", json={"planId": "pro"}, headers=h)
    ).json()
    await subscribe(client, key)
    r = await client.post(path_of(spare["checkoutUrl"]) + "/pay")
    assert r.status_code == 409 and "already has a subscription" in r.text
    assert (await status(client, key))["planId"] == "creator"
    r = await client.post("/api/v1/subscriptions/checkout", json={"planId": "pro"}, headers=h)
    assert r.status_code == 409 and r.json()["code"] == "subscription_exists"
    assert await scalar(db, "SELECT count(*) FROM subscription_checkouts") == 2
    portal = await client.post("/api/v1/subscriptions/portal", headers=h)
    assert portal.status_code == 200 and portal.json() == {"url": None}
    # An expired link cannot start anything.
    _, other = await create_account(db, email="other@example.com")
    link = (
        await client.post(
            "/api/v1/subscriptions/checkout", json={"planId": "pro"}, headers=auth(other))
    ).json()
    await set_time(db, T0 + timedelta(hours=24))
    assert (await client.post(path_of(link["checkoutUrl"]) + "/pay")).status_code == 410
    assert (await status(client, other))["planId"] is None


async def test_subscription_and_invoice_events_reach_webhook_endpoints(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db)
    settings.webhooks.allow_http = settings.webhooks.allow_loopback = True
    try:
        r = await client.post(
            "/api/v1/webhooks",
            json={"url": "http://127.0.0.1:9/hook",
                  "events": ["subscription.updated", "invoice.paid"]},
            headers=auth(key),
        )
        assert r.status_code == 200, r.text
    finally:
        settings.webhooks.allow_http = settings.webhooks.allow_loopback = False
    await subscribe(client, key)
    await set_time(db, T0 + timedelta(days=7))
    await run_once(runtime)
    events = await rows(
        db, "SELECT type, data FROM webhook_events WHERE account_id = :a ORDER BY occurred_at, id",
        a=account_id,
    )
    kinds = [e["type"] for e in events]
    assert kinds.count("invoice.paid") == 2 and "subscription.updated" in kinds
    paid = [e["data"] for e in events if e["type"] == "invoice.paid"]
    assert [(p["credits"], p["amountUsd"]) for p in paid] == [(0, 0), (1000, 29)]
    updated = [e["data"] for e in events if e["type"] == "subscription.updated"]
    assert updated[0]["status"] == "trialing" and updated[-1]["status"] == "active"


def outbox_subjects(settings, before: set) -> list[str]:
    new = sorted(set(settings.outbox_dir.glob("*.eml")) - before)
    return [
        str(email.message_from_bytes(p.read_bytes(), policy=email.policy.default)["Subject"])
        for p in new
    ]


async def test_trial_ending_email_goes_out_once_three_days_before(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db, email="trial@example.com")
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    before = set(settings.outbox_dir.glob("*.eml"))
    await subscribe(client, key, "pro")
    await set_time(db, T0 + timedelta(days=3, hours=23))
    await run_once(runtime)
    assert outbox_subjects(settings, before) == []  # more than three days left
    await set_time(db, T0 + timedelta(days=4))
    await run_once(runtime)
    await run_once(runtime)
    assert outbox_subjects(settings, before) == ["Your sors Pro trial ends 2026-08-10"]
