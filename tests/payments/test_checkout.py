"""Payments end to end: top-up links (rate limit, expiry), the local checkout page, keyless
checkout, Stripe webhooks (signatures, replays), and paused monitoring resuming on payment."""

from __future__ import annotations

import email
import email.policy
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sors.app import create_app
from sors.payments import service as checkout_service
from sors.payments.providers import CheckoutLink, CheckoutRequest
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import (  # noqa: F401 - sim_time_restored is a fixture
    fresh_sim_clock,
    rows,
    run_once,
    scalar,
    seed_profile,
    set_time,
    sim_time_restored,
)

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)
WEBHOOK_SECRET = "whsec_test_sors_checkout"


async def topup(client, key: str, pack: str = "pack_s") -> httpx.Response:
    return await client.post("/api/v1/credits/topup", json={"packId": pack}, headers=auth(key))


def path_of(url: str) -> str:
    return url.removeprefix("http://testserver")


async def test_local_payment_grants_once_and_resumes_paused_monitoring(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "tiktok", "paid.monitor", T0)
    account_id, key = await create_account(db, credits=5)
    h = auth(key)
    await client.post("/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=h)

    # The balance cannot pay the first refresh: monitoring pauses, nothing is charged.
    await set_time(db, T0 + timedelta(days=1))
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0 and ran == 0
    entry = (await client.get("/api/v1/tracking", headers=h)).json()["results"][0]
    assert entry["pausedReason"] == "insufficient_credits"

    r = await topup(client, key)
    assert r.status_code == 200, r.text
    assert r.headers["x-credits-charged"] == "0" and r.headers["x-credits-balance"] == "5"
    link = r.json()
    assert {k: link[k] for k in ("packId", "credits", "priceUsd")} == {
        "packId": "pack_s",
        "credits": 1500,
        "priceUsd": 15,
    }
    assert link["expiresAt"] == "2026-08-05T09:00:00Z"  # 24 hours
    assert link["checkoutUrl"].startswith("http://testserver/checkout/cs_")
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)  # a link is free

    page = await client.get(path_of(link["checkoutUrl"]))
    assert page.status_code == 200 and "$15.00" in page.text and 'method="post"' in page.text
    session_id = link["checkoutUrl"].rsplit("/", 1)[1]
    paid = await client.post(f"/checkout/{session_id}/pay")
    assert paid.status_code == 200 and "1,500 credits were added" in paid.text
    assert await balance_and_ledger_sum(db, account_id) == (1505, 1505)
    ledger = await rows(
        db,
        "SELECT kind, delta, external_ref FROM ledger_entries "
        "WHERE account_id = :a AND kind = 'topup'",
        a=account_id,
    )
    assert ledger == [{"kind": "topup", "delta": 1500, "external_ref": f"checkout:{session_id}"}]

    # Paying again grants nothing.
    again = await client.post(f"/checkout/{session_id}/pay")
    assert again.status_code == 200 and "already paid" in again.text.lower()
    assert await balance_and_ledger_sum(db, account_id) == (1505, 1505)

    # Monitoring resumed and is due at once.
    entry = (await client.get("/api/v1/tracking", headers=h)).json()["results"][0]
    assert entry["pausedReason"] is None and entry["nextCrawlAt"] == "2026-08-04T09:00:00Z"
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 1 and ran == 1
    assert await balance_and_ledger_sum(db, account_id) == (1495, 1495)

    for bad in ({"packId": "pack_xl"}, {"packId": 5}, {}):
        r = await client.post("/api/v1/credits/topup", json=bad, headers=h)
        assert r.status_code == 422, bad
    assert (
        await client.post("/api/v1/credits/topup", json={"packId": "pack_s"})
    ).status_code == 401


async def test_expired_link_grants_nothing(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
    account_id, key = await create_account(db)
    link = (await topup(client, key, "pack_m")).json()
    assert (link["credits"], link["priceUsd"]) == (5500, 50)
    await set_time(db, T0 + timedelta(hours=24))
    assert (await client.get(path_of(link["checkoutUrl"]))).status_code == 410
    session_id = link["checkoutUrl"].rsplit("/", 1)[1]
    r = await client.post(f"/checkout/{session_id}/pay")
    assert r.status_code == 410 and "expired" in r.text
    assert await balance_and_ledger_sum(db, account_id) == (0, 0)
    assert (await client.post("/checkout/cs_unknown0/pay")).status_code == 404


async def test_sixth_link_within_an_hour_is_rate_limited(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0)
    _, key = await create_account(db)
    _, other = await create_account(db)
    for i in range(5):
        await set_time(db, T0 + timedelta(minutes=10 * i))
        assert (await topup(client, key)).status_code == 200
    r = await topup(client, key)
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    # The oldest link (T0) leaves the hour at T0+60min; now is T0+40min.
    assert r.headers["retry-after"] == "1200" and r.json()["retryAfter"] == 1200
    assert (await topup(client, other)).status_code == 200  # per account
    await set_time(db, T0 + timedelta(minutes=60))
    assert (await topup(client, key)).status_code == 200


async def test_keyless_checkout_creates_an_account_and_shows_its_key_once(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0)
    pricing = (await client.get("/api/v1/pricing")).json()
    assert pricing["keylessCheckout"] == "http://testserver/checkout/keyless"
    form = await client.get("/checkout/keyless")
    assert form.status_code == 200 and "1,500 credits" in form.text
    bad = await client.post("/checkout/keyless", data={"email": "not an email"})
    assert bad.status_code == 422
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    before = set(settings.outbox_dir.glob("*.eml"))

    r = await client.post("/checkout/keyless", data={"email": "Buyer@Example.com"})
    assert r.status_code == 303
    page = await client.get(r.headers["location"].removeprefix("http://testserver"))
    assert page.status_code == 200 and "$15.00" in page.text
    session_id = r.headers["location"].rsplit("/", 1)[1]
    paid = await client.post(f"/checkout/{session_id}/pay")
    assert paid.status_code == 200
    key = next(
        w for w in paid.text.replace("<", " ").replace(">", " ").split() if w.startswith("sors_")
    )

    credits = await client.get("/api/v1/credits", headers=auth(key))
    assert credits.status_code == 200 and credits.json()["balance"] == 1500
    account_id = await scalar(
        db, "SELECT fulfilled_account_id FROM checkout_sessions WHERE id = :i", i=session_id
    )
    assert (
        await scalar(db, "SELECT email FROM accounts WHERE id = :a", a=account_id)
        == "buyer@example.com"
    )
    assert await balance_and_ledger_sum(db, account_id) == (1500, 1500)
    [mail] = [
        email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
        for f in set(settings.outbox_dir.glob("*.eml")) - before
    ]
    assert mail["To"] == "buyer@example.com" and key in mail.get_body(("plain",)).get_content()

    # Shown once: paying or revealing again shows no key.
    again = await client.post(f"/checkout/{session_id}/pay")
    assert "sors_" not in again.text
    assert (await client.post(f"/checkout/{session_id}/key")).status_code == 409
    assert (
        await scalar(db, "SELECT count(*) FROM api_keys WHERE account_id = :a", a=account_id) == 1
    )


# ---- Stripe webhooks ----------------------------------------------------------------------


class StubStripe:
    """Stands in for Stripe's checkout API only; webhooks go through the real provider."""

    name = "stripe"

    async def create_checkout(self, req: CheckoutRequest) -> CheckoutLink:
        return CheckoutLink(
            f"cs_test_{req.session_id[-8:]}", "https://checkout.stripe.test/pay", req.expires_at
        )


def signed(
    payload: bytes, *, at: datetime | None = None, secret: str = WEBHOOK_SECRET
) -> dict[str, str]:
    # Stripe's documented scheme: HMAC-SHA256 of "<timestamp>.<body>", header t=…,v1=…
    ts = int((at or datetime.now(UTC)).timestamp())
    mac = hmac.new(secret.encode(), f"{ts}.".encode() + payload, hashlib.sha256).hexdigest()
    return {"Stripe-Signature": f"t={ts},v1={mac}", "Content-Type": "application/json"}


def event(
    event_id: str, session_id: str, *, kind: str = "checkout.session.completed", amount: int = 1500
) -> bytes:
    return json.dumps(
        {
            "id": event_id,
            "object": "event",
            "type": kind,
            "data": {
                "object": {
                    "id": f"cs_test_{session_id[-8:]}",
                    "object": "checkout.session",
                    "client_reference_id": session_id,
                    "amount_total": amount,
                    "currency": "usd",
                    "payment_status": "paid",
                    "status": "complete",
                    "customer_details": {"email": None},
                    "metadata": {"sors_session_id": session_id},
                }
            },
        }
    ).encode()


@pytest.fixture
async def stripe_client(settings, db, clean) -> AsyncIterator[tuple[httpx.AsyncClient, object]]:
    stripe_settings = settings.with_values(
        payments="stripe", stripe_secret_key="sk_test_sors", stripe_webhook_secret=WEBHOOK_SECRET
    )
    stripe_app = create_app(stripe_settings, db=db, clock=fresh_sim_clock(db))
    transport = httpx.ASGITransport(app=stripe_app, client=("127.0.0.1", 5701))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c, stripe_settings


async def test_stripe_webhook_grants_once_and_refuses_bad_signatures(
    client: httpx.AsyncClient, stripe_client, db, app
) -> None:
    sc, stripe_settings = stripe_client
    await set_time(db, T0)
    account_id, _ = await create_account(db)
    async with db.transaction() as s:
        link = await checkout_service.create_topup_link(
            s,
            StubStripe(),
            stripe_settings,
            account_id=account_id,
            pack_id="pack_s",
            now=T0,
        )
    session_id = await scalar(
        db, "SELECT id FROM checkout_sessions WHERE account_id = :a", a=account_id
    )
    assert link.checkoutUrl == "https://checkout.stripe.test/pay"

    payload = event("evt_1", session_id)
    r = await sc.post("/webhooks/stripe", content=payload, headers=signed(payload))
    assert r.status_code == 200 and r.json()["outcome"] == "completed", r.text
    assert await balance_and_ledger_sum(db, account_id) == (1500, 1500)

    # Stripe retries deliveries: the same event again grants nothing.
    r = await sc.post("/webhooks/stripe", content=payload, headers=signed(payload))
    assert r.status_code == 200 and r.json()["outcome"] == "duplicate"
    # Another event for the same session (e.g. async payment succeeded) neither.
    other = event("evt_2", session_id, kind="checkout.session.async_payment_succeeded")
    r = await sc.post("/webhooks/stripe", content=other, headers=signed(other))
    assert r.status_code == 200 and r.json()["outcome"] == "already_completed"
    assert await balance_and_ledger_sum(db, account_id) == (1500, 1500)

    # Untrusted deliveries: 400 problem, nothing recorded.
    forged = event("evt_3", session_id)
    for headers in (
        signed(forged, secret="whsec_wrong"),
        signed(forged, at=datetime.now(UTC) - timedelta(minutes=10)),
        {"Content-Type": "application/json"},
    ):
        r = await sc.post("/webhooks/stripe", content=forged, headers=headers)
        assert r.status_code == 400 and r.headers["content-type"].startswith(
            "application/problem+json"
        )
    tampered = payload.replace(b'"amount_total": 1500', b'"amount_total": 150000')
    r = await sc.post("/webhooks/stripe", content=tampered, headers=signed(payload))
    assert r.status_code == 400
    assert await scalar(db, "SELECT count(*) FROM payment_events") == 2
    assert await balance_and_ledger_sum(db, account_id) == (1500, 1500)

    # The local provider takes no webhooks.
    assert (
        await client.post("/webhooks/stripe", content=payload, headers=signed(payload))
    ).status_code == 404


async def test_stripe_keyless_without_email_reveals_the_key_once(stripe_client, db, app) -> None:
    sc, stripe_settings = stripe_client
    await set_time(db, T0)
    async with db.transaction() as s:
        cs = await checkout_service.create_keyless(
            s, StubStripe(), stripe_settings, email=None, now=T0
        )
    assert "not received the payment" in (await sc.get(f"/checkout/{cs.id}/done")).text
    payload = event("evt_keyless", cs.id)
    r = await sc.post("/webhooks/stripe", content=payload, headers=signed(payload))
    assert r.status_code == 200 and r.json()["outcome"] == "completed"
    done = await sc.get(f"/checkout/{cs.id}/done")
    assert "Show my API key" in done.text
    shown = await sc.post(f"/checkout/{cs.id}/key")
    key = next(
        w for w in shown.text.replace("<", " ").replace(">", " ").split() if w.startswith("sors_")
    )
    assert (await sc.get("/api/v1/credits", headers=auth(key))).json()["balance"] == 1500
    assert (await sc.post(f"/checkout/{cs.id}/key")).status_code == 409
