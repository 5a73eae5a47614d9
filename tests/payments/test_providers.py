"""Payment providers: local checkout links, Stripe checkout creation against a local server
posing as the Stripe API, and Stripe webhook signature checks."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import parse_qsl

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sors.config import Settings
from sors.payments.providers import (
    CheckoutCreationError,
    CheckoutRequest,
    LocalProvider,
    PaymentProvider,
    StripeProvider,
    WebhookPayloadError,
    WebhookSignatureError,
    WebhooksNotSupportedError,
    get_provider,
)

WEBHOOK_SECRET = "whsec_test_0123456789abcdef"
SECRET_KEY = "sk_test_sors_fake"
NOW = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


def _request(**overrides) -> CheckoutRequest:
    fields = {
        "session_id": "chk_01HXYZ",
        "pack_id": "pack_s",
        "credits": 1500,
        "price_usd": Decimal("15"),
        "account_id": "acc_123",
        "email": "ana@example.com",
        "success_url": "https://sors.test/checkout/chk_01HXYZ/done",
        "cancel_url": "https://sors.test/checkout/chk_01HXYZ/cancelled",
        "expires_at": NOW + timedelta(hours=24),
    }
    fields.update(overrides)
    return CheckoutRequest(**fields)


# --- local provider ------------------------------------------------------------------------


async def test_local_provider_links_to_our_own_checkout_page() -> None:
    provider = get_provider(Settings(payments="local", platform_source="sim",
                                     base_url="http://127.0.0.1:8000/"))
    assert isinstance(provider, LocalProvider)
    assert isinstance(provider, PaymentProvider)
    req = _request()
    link = await provider.create_checkout(req)
    assert link.checkout_url == "http://127.0.0.1:8000/checkout/chk_01HXYZ"
    assert link.provider_session_id == "chk_01HXYZ"
    assert link.expires_at == req.expires_at


async def test_local_provider_quotes_the_session_id_and_refuses_webhooks() -> None:
    provider = LocalProvider("https://pay.example.com/sors")
    link = await provider.create_checkout(_request(session_id="a/b c"))
    assert link.checkout_url == "https://pay.example.com/sors/checkout/a%2Fb%20c"
    with pytest.raises(WebhooksNotSupportedError):
        provider.parse_webhook(b"{}", {})


def test_amount_in_cents() -> None:
    assert _request(price_usd=15).amount_cents == 1500
    assert _request(price_usd="14.99").amount_cents == 1499
    assert _request(price_usd=Decimal("120.00")).amount_cents == 12000
    for bad in ("0", "-5", "1.005", "abc"):
        with pytest.raises(ValueError):
            _ = _request(price_usd=bad).amount_cents


def test_stripe_provider_needs_its_keys() -> None:
    with pytest.raises(ValueError):
        get_provider(Settings(payments="stripe", stripe_secret_key="sk_test_x"))
    provider = get_provider(
        Settings(
            payments="stripe", stripe_secret_key=SECRET_KEY, stripe_webhook_secret=WEBHOOK_SECRET
        )
    )
    assert isinstance(provider, StripeProvider)
    assert SECRET_KEY not in repr(provider) and WEBHOOK_SECRET not in repr(provider)


# --- Stripe checkout against a local stand-in for api.stripe.com ------------------------


class FakeStripe:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.fail_with: tuple[int, dict] | None = None

    async def create_session(self, request: Request) -> JSONResponse:
        body = (await request.body()).decode()
        self.requests.append(
            {
                "form": dict(parse_qsl(body, keep_blank_values=True)),
                "headers": dict(request.headers),
                "content_type": request.headers.get("content-type", ""),
            }
        )
        if self.fail_with:
            status, payload = self.fail_with
            return JSONResponse(payload, status_code=status)
        form = self.requests[-1]["form"]
        return JSONResponse(
            {
                "id": "cs_test_a1b2c3",
                "object": "checkout.session",
                "url": "https://checkout.stripe.test/c/pay/cs_test_a1b2c3",
                "expires_at": int(form["expires_at"]),
                "client_reference_id": form.get("client_reference_id"),
                "payment_status": "unpaid",
                "status": "open",
            }
        )


@pytest.fixture(scope="module")
def fake_stripe() -> Iterator[tuple[FakeStripe, str]]:
    fake = FakeStripe()
    app = Starlette(routes=[Route("/v1/checkout/sessions", fake.create_session, methods=["POST"])])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "fake Stripe server did not start"
        time.sleep(0.01)
    try:
        yield fake, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _stripe(api_base: str) -> StripeProvider:
    return StripeProvider(
        SECRET_KEY, WEBHOOK_SECRET, api_base=api_base, max_network_retries=0, timeout=5
    )


async def test_stripe_checkout_sends_the_session_and_uses_the_returned_url(fake_stripe) -> None:
    fake, base = fake_stripe
    fake.requests.clear()
    req = _request(expires_at=datetime.now(UTC) + timedelta(hours=2))
    link = await _stripe(base).create_checkout(req)

    assert link.checkout_url == "https://checkout.stripe.test/c/pay/cs_test_a1b2c3"
    assert link.provider_session_id == "cs_test_a1b2c3"
    assert link.expires_at == datetime.fromtimestamp(int(req.expires_at.timestamp()), UTC)

    assert len(fake.requests) == 1
    sent = fake.requests[0]
    assert sent["content_type"].startswith("application/x-www-form-urlencoded")
    assert sent["headers"]["authorization"] == f"Bearer {SECRET_KEY}"
    assert sent["headers"]["idempotency-key"] == "sors-checkout-chk_01HXYZ"
    form = sent["form"]
    assert form["mode"] == "payment"
    assert form["line_items[0][price_data][currency]"] == "usd"
    assert form["line_items[0][price_data][unit_amount]"] == "1500"
    assert "1,500" in form["line_items[0][price_data][product_data][name]"]
    assert form["line_items[0][quantity]"] == "1"
    assert form["client_reference_id"] == "chk_01HXYZ"
    assert form["metadata[sors_session_id]"] == "chk_01HXYZ"
    assert form["metadata[pack_id]"] == "pack_s"
    assert form["metadata[account_id]"] == "acc_123"
    assert form["expires_at"] == str(int(req.expires_at.timestamp()))
    assert form["customer_email"] == "ana@example.com"
    assert form["success_url"] == req.success_url
    assert form["cancel_url"] == req.cancel_url


async def test_stripe_keyless_checkout_omits_account_and_email(fake_stripe) -> None:
    fake, base = fake_stripe
    fake.requests.clear()
    await _stripe(base).create_checkout(_request(account_id=None, email=None, price_usd="14.99"))
    form = fake.requests[0]["form"]
    assert form["line_items[0][price_data][unit_amount]"] == "1499"
    assert "metadata[account_id]" not in form
    assert "customer_email" not in form
    assert form["metadata[sors_session_id]"] == "chk_01HXYZ"


async def test_stripe_expiry_is_kept_within_what_stripe_accepts(fake_stripe) -> None:
    fake, base = fake_stripe
    fake.requests.clear()
    provider = _stripe(base)
    now = datetime.now(UTC)
    await provider.create_checkout(_request(expires_at=now + timedelta(days=3)))
    await provider.create_checkout(_request(expires_at=now + timedelta(minutes=5)))
    too_late, too_soon = (int(r["form"]["expires_at"]) for r in fake.requests)
    assert now.timestamp() + 23 * 3600 < too_late <= now.timestamp() + 24 * 3600
    assert now.timestamp() + 30 * 60 < too_soon <= now.timestamp() + 35 * 60


async def test_stripe_error_becomes_checkout_creation_error(fake_stripe) -> None:
    fake, base = fake_stripe
    fake.fail_with = (
        400,
        {"error": {"type": "invalid_request_error", "message": "Invalid currency", "code": "bad"}},
    )
    try:
        with pytest.raises(CheckoutCreationError) as info:
            await _stripe(base).create_checkout(_request())
        assert SECRET_KEY not in str(info.value)
    finally:
        fake.fail_with = None


async def test_stripe_unreachable_is_checkout_creation_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(CheckoutCreationError):
        await _stripe(f"http://127.0.0.1:{port}").create_checkout(_request())


# --- Stripe webhooks -----------------------------------------------------------------------


def _event(event_type: str = "checkout.session.completed", **obj_overrides) -> bytes:
    obj = {
        "id": "cs_test_a1b2c3",
        "object": "checkout.session",
        "amount_total": 1500,
        "currency": "usd",
        "client_reference_id": "chk_01HXYZ",
        "customer_details": {"email": "ana@example.com"},
        "customer_email": None,
        "metadata": {"sors_session_id": "chk_01HXYZ", "pack_id": "pack_s"},
        "mode": "payment",
        "payment_status": "paid",
        "status": "complete",
    }
    obj.update(obj_overrides)
    event = {
        "id": "evt_1Q2w3E",
        "object": "event",
        "type": event_type,
        "created": int(NOW.timestamp()),
        "data": {"object": obj},
        "livemode": False,
    }
    return json.dumps(event).encode()


def _sign(payload: bytes, *, secret: str = WEBHOOK_SECRET, at: datetime = NOW) -> dict[str, str]:
    # The documented scheme, computed independently of the SDK.
    ts = int(at.timestamp())
    mac = hmac.new(secret.encode(), f"{ts}.".encode() + payload, hashlib.sha256).hexdigest()
    return {"Stripe-Signature": f"t={ts},v1={mac}"}


def _provider() -> StripeProvider:
    return StripeProvider(SECRET_KEY, WEBHOOK_SECRET)


def test_valid_webhook_is_accepted_and_mapped() -> None:
    payload = _event()
    event = _provider().parse_webhook(payload, _sign(payload), now=NOW + timedelta(seconds=5))
    assert event.event_id == "evt_1Q2w3E"
    assert event.kind == "checkout_completed"
    assert event.provider_session_id == "cs_test_a1b2c3"
    assert event.session_id == "chk_01HXYZ"
    assert event.amount_cents == 1500
    assert event.currency == "usd"
    assert event.customer_email == "ana@example.com"
    assert event.event_type == "checkout.session.completed"


def test_header_lookup_is_case_insensitive() -> None:
    payload = _event()
    headers = {"stripe-signature": _sign(payload)["Stripe-Signature"]}
    assert _provider().parse_webhook(payload, headers, now=NOW).kind == "checkout_completed"


def test_event_kinds() -> None:
    provider = _provider()

    def kind(payload: bytes) -> str:
        return provider.parse_webhook(payload, _sign(payload), now=NOW).kind

    assert (
        kind(_event("checkout.session.expired", payment_status="unpaid", status="expired"))
        == "checkout_expired"
    )
    # completed but not yet paid (delayed payment method): nothing to grant yet
    assert kind(_event("checkout.session.completed", payment_status="unpaid")) == "other"
    assert kind(_event("checkout.session.async_payment_succeeded")) == "checkout_completed"
    assert kind(_event("checkout.session.async_payment_failed", payment_status="unpaid")) == "other"
    assert kind(_event("charge.refunded", object="charge", id="ch_1")) == "other"


def test_session_id_falls_back_to_metadata() -> None:
    payload = _event(client_reference_id=None)
    event = _provider().parse_webhook(payload, _sign(payload), now=NOW)
    assert event.session_id == "chk_01HXYZ"


def test_tampered_payload_is_rejected() -> None:
    payload = _event()
    headers = _sign(payload)
    tampered = payload.replace(b'"amount_total": 1500', b'"amount_total": 150000')
    assert tampered != payload
    with pytest.raises(WebhookSignatureError):
        _provider().parse_webhook(tampered, headers, now=NOW)


def test_wrong_secret_is_rejected() -> None:
    payload = _event()
    with pytest.raises(WebhookSignatureError):
        _provider().parse_webhook(payload, _sign(payload, secret="whsec_other"), now=NOW)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Stripe-Signature": ""},
        {"Stripe-Signature": "garbage"},
        {"Stripe-Signature": "t=abc,v1=00"},
    ],
)
def test_missing_or_malformed_header_is_rejected(headers) -> None:
    with pytest.raises(WebhookSignatureError):
        _provider().parse_webhook(_event(), headers, now=NOW)


def test_old_timestamp_is_rejected() -> None:
    payload = _event()
    headers = _sign(payload, at=NOW - timedelta(minutes=10))
    with pytest.raises(WebhookSignatureError):
        _provider().parse_webhook(payload, headers, now=NOW)
    # within the 300 s tolerance it is fine, on either side
    assert _provider().parse_webhook(
        payload, _sign(payload, at=NOW - timedelta(seconds=299)), now=NOW
    )
    assert _provider().parse_webhook(
        payload, _sign(payload, at=NOW + timedelta(seconds=60)), now=NOW
    )
    with pytest.raises(WebhookSignatureError):
        _provider().parse_webhook(payload, _sign(payload, at=NOW + timedelta(minutes=10)), now=NOW)


def test_signed_garbage_is_a_payload_error() -> None:
    payload = b'{"not": "an event"}'
    with pytest.raises(WebhookPayloadError):
        _provider().parse_webhook(payload, _sign(payload), now=NOW)
    # and a payload error is also a signature error, so one `except` answers 400
    assert issubclass(WebhookPayloadError, WebhookSignatureError)
