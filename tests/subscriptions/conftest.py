"""Stripe for the subscription tests: a local server posing as the Stripe API (one per test
module), and an app that bills through it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from sors.app import create_app
from tests.factories.world import fresh_sim_clock
from tests.subscriptions.stripe_fake import WEBHOOK_SECRET, serve_fake_stripe

PRICES = {
    "creator_month": "price_creator_month",
    "creator_year": "price_creator_year",
    "pro_month": "price_pro_month",
}  # pro_year: found by its lookup key


@pytest.fixture(scope="module")
def fake_stripe() -> Iterator[tuple[object, str]]:
    with serve_fake_stripe() as served:
        yield served


@pytest.fixture
async def sc(settings, db, clean, fake_stripe) -> AsyncIterator[httpx.AsyncClient]:
    fake, base = fake_stripe
    fake.requests.clear()
    fake.cancel_at_period_end = False
    stripe_settings = settings.with_values(**{
        "payments": "stripe", "stripe_secret_key": "sk_test_sors",
        "stripe_webhook_secret": WEBHOOK_SECRET, "stripe_api_base": base,
        "stripe_prices": dict(PRICES),
    })
    stripe_app = create_app(stripe_settings, db=db, clock=fresh_sim_clock(db))
    transport = httpx.ASGITransport(app=stripe_app, client=("127.0.0.1", 5702))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
