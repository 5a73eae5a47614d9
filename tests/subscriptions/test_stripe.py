"""Subscriptions through Stripe: Checkout in subscription mode against a local server posing
as the Stripe API, and Stripe-signed webhooks shaped like Stripe's documented events — a
yearly invoice grants twelve months (the monthly ones, in whatever order and however often
they arrive: test_stripe_invoices.py); cancel, resume, plan changes and the customer
portal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import scalar
from tests.subscriptions.stripe_fake import (
    event,
    invoice_object,
    metadata,
    signed,
    subscription_object,
)

P0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)
P1 = P0 + timedelta(days=7)  # the trial's end
P2 = datetime(2026, 9, 10, 9, 0, tzinfo=UTC)
P3 = datetime(2026, 10, 10, 9, 0, tzinfo=UTC)


async def deliver(sc: httpx.AsyncClient, payload: bytes) -> str:
    r = await sc.post("/webhooks/stripe", content=payload, headers=signed(payload))
    assert r.status_code == 200, r.text
    return r.json()["outcome"]


async def status(sc: httpx.AsyncClient, key: str) -> dict:
    r = await sc.get("/api/v1/subscriptions", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def test_checkout_is_stripe_subscription_mode_with_the_configured_price_and_trial(
    sc, db, fake_stripe
) -> None:
    fake, _ = fake_stripe
    account_id, key = await create_account(db, email="buyer@example.com")
    r = await sc.post(
        "/api/v1/subscriptions/checkout", json={"planId": "creator"}, headers=auth(key))
    assert r.status_code == 200, r.text
    link = r.json()
    assert link["checkoutUrl"].startswith("https://checkout.stripe.test/c/pay/cs_test_")
    assert (link["trialDays"], link["priceUsd"]) == (7, 29)
    [form] = fake.sent("POST", "/v1/checkout/sessions")
    checkout_id = await scalar(db, "SELECT id FROM subscription_checkouts")
    assert form["mode"] == "subscription"
    assert form["line_items[0][price]"] == "price_creator_month"
    assert form["line_items[0][quantity]"] == "1"
    assert form["subscription_data[trial_period_days]"] == "7"
    assert form["subscription_data[metadata][sors_account_id]"] == account_id
    assert form["subscription_data[metadata][plan_id]"] == "creator"
    assert form["subscription_data[metadata][interval]"] == "month"
    assert form["client_reference_id"] == checkout_id
    assert form["customer_email"] == "buyer@example.com"
    assert "price_data" not in " ".join(form)

    # A plan without a configured price is found by its lookup key.
    _, other = await create_account(db, email="other@example.com")
    r = await sc.post(
        "/api/v1/subscriptions/checkout", json={"planId": "pro", "interval": "year"},
        headers=auth(other),
    )
    assert r.status_code == 200, r.text
    assert fake.sent("GET", "/v1/prices")[0]["lookup_keys[0]"] == "sors_pro_year"
    assert fake.sent("POST", "/v1/checkout/sessions")[1]["line_items[0][price]"] == (
        "price_lookup_pro_year"
    )
    # No price at all: 503, nothing recorded.
    _, third = await create_account(db, email="third@example.com")
    r = await sc.post(
        "/api/v1/subscriptions/checkout", json={"planId": "agency"}, headers=auth(third)
    )
    assert r.status_code == 503 and r.json()["code"] == "unavailable"
    assert await scalar(db, "SELECT count(*) FROM subscription_checkouts") == 2


async def test_yearly_invoice_grants_twelve_months_at_once(sc, db) -> None:
    account_id, key = await create_account(db)
    meta = metadata(account_id, "creator", "year")
    paid = invoice_object(
        "in_year", "sub_test_y", amount_paid=29000, billing_reason="subscription_create",
        price="price_creator_year", start=P0, end=P0.replace(year=2027), meta=meta,
    )
    assert await deliver(sc, event("evt_y1", "invoice.paid", paid)) == "granted"
    assert await deliver(sc, event("evt_y2", "invoice.paid", paid)) == "duplicate_invoice"
    assert await balance_and_ledger_sum(db, account_id) == (12000, 12000)
    s = await status(sc, key)
    assert (s["planId"], s["interval"], s["creditsGrantedThisPeriod"]) == ("creator", "year", 12000)


async def test_cancel_resume_change_and_portal_go_through_stripe(sc, db, fake_stripe) -> None:
    fake, _ = fake_stripe
    account_id, key = await create_account(db)
    h = auth(key)
    meta = metadata(account_id, "creator", "month")
    first = invoice_object(
        "in_c1", "sub_test_c", amount_paid=2900, billing_reason="subscription_create",
        price="price_creator_month", start=P0, end=P2, meta=meta,
    )
    assert await deliver(sc, event("evt_c1", "invoice.paid", first)) == "granted"

    r = await sc.post("/api/v1/subscriptions/cancel", headers=h)
    assert r.status_code == 200 and r.json()["cancelAtPeriodEnd"] is True
    assert fake.sent("POST", "/v1/subscriptions/sub_test_c")[-1]["cancel_at_period_end"] == "true"
    r = await sc.post("/api/v1/subscriptions/resume", headers=h)
    assert r.status_code == 200 and r.json()["cancelAtPeriodEnd"] is False
    assert fake.sent("POST", "/v1/subscriptions/sub_test_c")[-1]["cancel_at_period_end"] == "false"

    # Upgrade: Stripe prorates and invoices at once; that invoice grants the difference.
    r = await sc.post("/api/v1/subscriptions/change", json={"planId": "pro"}, headers=h)
    assert r.status_code == 200 and r.json()["planId"] == "pro"
    update = fake.sent("POST", "/v1/subscriptions/sub_test_c")[-1]
    assert update["items[0][id]"] == "si_test_1" and update["items[0][price]"] == "price_pro_month"
    assert update["proration_behavior"] == "always_invoice"
    assert update["metadata[plan_id]"] == "pro"
    assert await balance_and_ledger_sum(db, account_id) == (1000, 1000)  # not before it is paid
    proration = invoice_object(
        "in_c2", "sub_test_c", amount_paid=4100, billing_reason="subscription_update",
        price="price_pro_month", start=P0, end=P2, meta=metadata(account_id, "pro", "month"),
    )
    assert await deliver(sc, event("evt_c2", "invoice.paid", proration)) == "granted"
    assert await balance_and_ledger_sum(db, account_id) == (4000, 4000)  # 3,000 more

    # To yearly billing, a price found by its lookup key.
    r = await sc.post(
        "/api/v1/subscriptions/change", json={"planId": "pro", "interval": "year"}, headers=h
    )
    assert r.status_code == 200 and r.json()["interval"] == "year"
    assert fake.sent("GET", "/v1/prices")[-1]["lookup_keys[0]"] == "sors_pro_year"
    assert fake.sent("POST", "/v1/subscriptions/sub_test_c")[-1]["items[0][price]"] == (
        "price_lookup_pro_year"
    )
    # No price for the plan: 503, the subscription unchanged.
    r = await sc.post("/api/v1/subscriptions/change", json={"planId": "agency"}, headers=h)
    assert r.status_code == 503
    assert (await status(sc, key))["planId"] == "pro"

    r = await sc.post("/api/v1/subscriptions/portal", headers=h)
    assert r.json() == {"url": "https://billing.stripe.test/p/session/bps_1"}
    assert fake.sent("POST", "/v1/billing_portal/sessions")[-1]["customer"] == "cus_test_1"

    deleted = subscription_object(
        "sub_test_c", status="canceled", price="price_pro_month", start=P0, end=P2, meta=meta
    )
    assert await deliver(sc, event("evt_c3", "customer.subscription.deleted", deleted)) == "applied"
    s = await status(sc, key)
    assert s["status"] == "canceled" and s["appliedPlanId"] is None

    # A new subscription; a late event of the old one does not overwrite it.
    newer = invoice_object(
        "in_c3", "sub_test_d", amount_paid=2900, billing_reason="subscription_create",
        price="price_creator_month", start=P2, end=P3, meta=meta,
    )
    assert await deliver(sc, event("evt_c4", "invoice.paid", newer)) == "granted"
    old_update = subscription_object(
        "sub_test_c", status="active", price="price_pro_month", start=P0, end=P2, meta=meta
    )
    assert await deliver(
        sc, event("evt_c5", "customer.subscription.updated", old_update)
    ) == "unknown"
    s = await status(sc, key)
    assert (s["status"], s["planId"], s["currentPeriodEnd"]) == (
        "active", "creator", "2026-10-10T09:00:00Z"
    )
