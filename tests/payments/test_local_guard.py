"""The local payment provider grants credits for a click: a live install refuses it — top-ups,
keyless checkout, plans, renewals and a local session made earlier — unless the operator
says SORS_PAYMENTS_LOCAL_ALLOWED=true (a staging install), which `sors doctor` calls an
error and `sors serve` shouts about."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text

from sors.app import create_app
from sors.cli.doctor import payments_check
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import fresh_sim_clock


@pytest.fixture
async def live_client(settings, db, clean) -> AsyncIterator[httpx.AsyncClient]:
    """The app as a live install with the default (local) payment provider."""
    app = create_app(settings.with_values(platform_source="live"), db=db,
                     clock=fresh_sim_clock(db))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5701))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def _sessions(db) -> int:
    async with db.session() as s:
        return int((await s.execute(text("SELECT count(*) FROM checkout_sessions"))).scalar())


async def test_a_live_install_refuses_local_checkout(live_client, db) -> None:
    account_id, key = await create_account(db, credits=5, email="live@example.com")
    r = await live_client.post("/api/v1/credits/topup", json={"packId": "pack_s"},
                               headers=auth(key))
    assert r.status_code == 503 and r.json()["code"] == "payments_unavailable", r.text
    assert await _sessions(db) == 0
    plan = await live_client.post("/api/v1/subscriptions/checkout",
                                  json={"planId": "pro", "interval": "month"}, headers=auth(key))
    assert plan.status_code == 503 and plan.json()["code"] == "payments_unavailable"
    # Keyless checkout is off outside the demo: no form, no account, no key.
    pricing = (await live_client.get("/api/v1/pricing")).json()
    assert pricing["keylessCheckout"] is None
    assert (await live_client.get("/checkout/keyless")).status_code == 404
    made = await live_client.post("/checkout/keyless", data={"email": "buyer@example.com"})
    assert made.status_code == 404
    async with db.session() as s:
        accounts = (await s.execute(text("SELECT count(*) FROM accounts"))).scalar()
    assert accounts == 1
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)


async def test_a_local_session_made_before_cannot_be_paid_live(
    client: httpx.AsyncClient, live_client, db
) -> None:
    account_id, key = await create_account(db, credits=0, email="before@example.com")
    link = await client.post("/api/v1/credits/topup", json={"packId": "pack_s"},
                             headers=auth(key))  # the demo's app: allowed
    assert link.status_code == 200
    session_id = link.json()["checkoutUrl"].rsplit("/", 1)[-1]
    paid = await live_client.post(f"/checkout/{session_id}/pay")
    assert paid.status_code == 503
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)


async def test_keyless_stays_off_live_even_when_asked_for_on_a_local_provider(
    settings, db, clean
) -> None:
    asked = settings.with_values(platform_source="live", keyless_checkout_enabled=True)
    assert asked.keyless_checkout_open is False
    staging = asked.with_values(payments_local_allowed=True)
    assert staging.keyless_checkout_open is True
    assert settings.with_values(platform_source="sim").keyless_checkout_open is True


def test_doctor_names_the_payment_mode_and_calls_local_on_live_an_error(settings) -> None:
    assert payments_check(settings.with_values(platform_source="sim"))["status"] == "ok"
    refused = payments_check(settings.with_values(platform_source="live"))
    assert (refused["mode"], refused["status"]) == ("local", "warning")
    assert "503 payments_unavailable" in refused["detail"]
    allowed = payments_check(settings.with_values(platform_source="live",
                                                  payments_local_allowed=True))
    assert allowed["status"] == "error" and "WITHOUT MONEY" in allowed["detail"]
    test_mode = payments_check(settings.with_values(
        payments="stripe", stripe_secret_key="sk_test_x", stripe_webhook_secret="whsec_x"))
    assert (test_mode["mode"], test_mode["status"]) == ("stripe", "warning")


async def test_local_renewals_grant_nothing_live(settings, db, clean) -> None:
    from sors.kit.runtime import Runtime
    from sors.subscriptions import invoices
    from sors.wiring import REGISTRIES

    rt = Runtime(settings.with_values(platform_source="live"), fresh_sim_clock(db), REGISTRIES,
                 db)
    await rt.clock.refresh()
    async with db.transaction() as s:
        assert await invoices.renew_due(s, rt.now() + timedelta(days=400), rt, limit=10) == 0
