"""Stripe's invoices for a monthly subscription, delivered as Stripe-signed webhooks shaped
like Stripe's documented events: each paid invoice grants once (none for a trial), in
whatever order and however often the events arrive; a failed renewal is past due; a forged
signature records nothing. One test per step, each on a fresh account brought to that step
by the steps before it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import run_once, scalar
from tests.subscriptions.stripe_fake import (
    event,
    invoice_object,
    invoice_object_basil,
    metadata,
    signed,
    subscription_object,
    ts,
)
from tests.subscriptions.test_local import outbox_subjects
from tests.subscriptions.test_stripe import P0, P1, P2, P3, deliver, status


@dataclass
class Invoicing:
    """An account that opened a checkout for the creator plan (monthly), billed through
    the subscription `sub_test_1`."""

    sc: httpx.AsyncClient
    db: Any
    runtime: Any
    settings: Any
    account_id: str
    key: str
    checkout_id: str
    sub: str = "sub_test_1"

    @property
    def meta(self) -> dict[str, str]:
        return metadata(self.account_id, "creator", "month")

    def trialing(self) -> dict[str, Any]:
        return subscription_object(
            self.sub, status="trialing", price="price_creator_month", start=P0, end=P1,
            trial_end=P1, meta=self.meta,
        )

    def invoice(self, invoice_id: str, start: datetime, end: datetime, **kw: Any) -> dict:
        fields = {"amount_paid": 2900, "billing_reason": "subscription_cycle", **kw}
        return invoice_object(invoice_id, self.sub, price="price_creator_month", start=start,
                              end=end, meta=self.meta, **fields)

    async def before(self, step: Callable[[Invoicing], Awaitable[Any]]) -> None:
        """Run the steps before `step`; their own tests check them."""
        for earlier in INVOICE_STEPS[: INVOICE_STEPS.index(step)]:
            await earlier(self)


T_TRIAL = ts(P0) + 60  # when the trial's subscription.updated was created


@pytest.fixture
async def invoicing(sc, db, runtime, settings) -> Invoicing:
    account_id, key = await create_account(db)
    await sc.post("/api/v1/subscriptions/checkout", json={"planId": "creator"}, headers=auth(key))
    checkout_id = await scalar(db, "SELECT id FROM subscription_checkouts")
    return Invoicing(sc, db, runtime, settings, account_id, key, checkout_id)


# ---- the steps, in order: each delivers what Stripe sends and returns the outcomes


async def trial_starts(i: Invoicing) -> list[str]:
    """The trial's zero invoice arrives before the checkout's completion, then the
    completion and the trialing subscription."""
    trial_invoice = i.invoice("in_trial", P0, P1, amount_paid=0,
                              billing_reason="subscription_create")
    completed = {
        "id": "cs_test_1", "object": "checkout.session", "mode": "subscription",
        "client_reference_id": i.checkout_id, "subscription": i.sub, "customer": "cus_test_1",
        "payment_status": "no_payment_required", "status": "complete", "metadata": i.meta,
    }
    return [
        await deliver(i.sc, event("evt_1", "invoice.paid", trial_invoice)),
        await deliver(i.sc, event("evt_2", "checkout.session.completed", completed)),
        await deliver(i.sc, event("evt_3", "customer.subscription.updated", i.trialing(),
                                  created=T_TRIAL)),
    ]


def first_paid(i: Invoicing) -> bytes:
    return event("evt_4", "invoice.paid", i.invoice("in_1", P1, P2))


async def first_invoice_paid(i: Invoicing) -> str:
    return await deliver(i.sc, first_paid(i))


async def first_invoice_repeated(i: Invoicing) -> tuple[str, str]:
    """Stripe retries that delivery; another event names the same invoice."""
    return (await deliver(i.sc, first_paid(i)),
            await deliver(i.sc, event("evt_5", "invoice.paid", i.invoice("in_1", P1, P2))))


async def trial_update_arrives_late(i: Invoicing) -> str:
    late = event("evt_6", "customer.subscription.updated", i.trialing(), created=T_TRIAL - 30)
    return await deliver(i.sc, late)


async def next_month_paid(i: Invoicing) -> str:
    """The next month, in the invoice shape of API versions from 2025-03-31."""
    basil = invoice_object_basil(
        "in_2", i.sub, amount_paid=2900, billing_reason="subscription_cycle",
        price="price_creator_month", start=P2, end=P3, meta=i.meta,
    )
    return await deliver(i.sc, event("evt_7", "invoice.paid", basil))


async def renewal_fails(i: Invoicing) -> str:
    failed = i.invoice("in_3", P3, P3 + timedelta(days=31), amount_paid=0)
    return await deliver(i.sc, event("evt_8", "invoice.payment_failed", failed))


INVOICE_STEPS: tuple[Callable[[Invoicing], Awaitable[Any]], ...] = (
    trial_starts, first_invoice_paid, first_invoice_repeated, trial_update_arrives_late,
    next_month_paid, renewal_fails,
)


# ---- one test per step


async def test_a_trial_grants_nothing_and_is_known_before_the_checkout_completes(
    invoicing: Invoicing,
) -> None:
    # The subscription is known from the metadata set at checkout.
    i = invoicing
    trial_invoice, completed, trialing = await trial_starts(i)
    assert trial_invoice == "no_credits"
    assert completed == "applied"
    assert trialing == "applied"
    s = await status(i.sc, i.key)
    assert (s["status"], s["planId"], s["provider"]) == ("trialing", "creator", "stripe")
    assert s["trialEnd"] == "2026-08-10T09:00:00Z"
    assert await balance_and_ledger_sum(i.db, i.account_id) == (0, 0)


async def test_the_first_paid_invoice_grants_the_months_credits(invoicing: Invoicing) -> None:
    i = invoicing
    await i.before(first_invoice_paid)
    assert await first_invoice_paid(i) == "granted"
    assert await balance_and_ledger_sum(i.db, i.account_id) == (1000, 1000)


async def test_the_same_invoice_again_grants_nothing_more(invoicing: Invoicing) -> None:
    i = invoicing
    await i.before(first_invoice_repeated)
    retried, same_invoice = await first_invoice_repeated(i)
    assert retried == "duplicate"
    assert same_invoice == "duplicate_invoice"
    assert await balance_and_ledger_sum(i.db, i.account_id) == (1000, 1000)
    s = await status(i.sc, i.key)
    assert (s["status"], s["creditsGrantedThisPeriod"]) == ("active", 1000)
    assert s["currentPeriodEnd"] == "2026-09-10T09:00:00Z"


async def test_the_trials_update_delivered_late_changes_nothing(invoicing: Invoicing) -> None:
    i = invoicing
    await i.before(trial_update_arrives_late)
    assert await trial_update_arrives_late(i) == "stale"
    assert (await status(i.sc, i.key))["status"] == "active"


async def test_the_next_month_in_the_newer_invoice_shape_grants_again(
    invoicing: Invoicing,
) -> None:
    i = invoicing
    await i.before(next_month_paid)
    assert await next_month_paid(i) == "granted"
    assert await balance_and_ledger_sum(i.db, i.account_id) == (2000, 2000)
    refs = await scalar(
        i.db, "SELECT string_agg(external_ref, ',' ORDER BY external_ref) FROM ledger_entries"
        " WHERE account_id = :a", a=i.account_id,
    )
    assert refs == "invoice:stripe:in_1,invoice:stripe:in_2"


async def test_a_failed_renewal_is_past_due_and_emails_the_owner(invoicing: Invoicing) -> None:
    # Limits stay while Stripe retries.
    i = invoicing
    await i.before(renewal_fails)
    assert await renewal_fails(i) == "payment_failed"
    s = await status(i.sc, i.key)
    assert (s["status"], s["appliedPlanId"]) == ("past_due", "creator")
    assert await balance_and_ledger_sum(i.db, i.account_id) == (2000, 2000)
    i.settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    before = set(i.settings.outbox_dir.glob("*.eml"))
    await run_once(i.runtime)
    await run_once(i.runtime)
    assert outbox_subjects(i.settings, before) == ["Payment for your sors Creator plan failed"]


async def test_a_forged_signature_is_400_and_records_nothing(invoicing: Invoicing) -> None:
    i = invoicing
    for step in INVOICE_STEPS:
        await step(i)
    forged = event("evt_9", "invoice.paid", i.invoice("in_4", P3, P3 + timedelta(days=31)))
    r = await i.sc.post(
        "/webhooks/stripe", content=forged, headers=signed(forged, secret="whsec_x"))
    assert r.status_code == 400
    assert await balance_and_ledger_sum(i.db, i.account_id) == (2000, 2000)
    assert await scalar(i.db, "SELECT count(*) FROM subscription_invoices") == 3
