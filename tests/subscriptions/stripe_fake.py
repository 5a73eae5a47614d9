"""A local server posing as the Stripe API for subscriptions (Checkout Sessions, prices by
lookup key, subscription updates, the billing portal), and Stripe-signed event payloads
shaped like Stripe's documented `invoice.paid`, `customer.subscription.updated`, … events."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

WEBHOOK_SECRET = "whsec_test_sors_subscriptions"
LOOKUP_PRICES = {"sors_pro_year": "price_lookup_pro_year"}


class FakeStripe:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.cancel_at_period_end = False

    async def _record(self, request: Request) -> dict[str, str]:
        body = (await request.body()).decode()
        form = dict(parse_qsl(body, keep_blank_values=True)) or dict(request.query_params)
        self.requests.append((request.method, request.url.path, form))
        return form

    def sent(self, method: str, path: str) -> list[dict[str, str]]:
        return [f for m, p, f in self.requests if m == method and p == path]

    async def sessions(self, request: Request) -> JSONResponse:
        form = await self._record(request)
        sid = f"cs_test_{form['client_reference_id'][-8:]}"
        return JSONResponse({
            "id": sid, "object": "checkout.session", "mode": form.get("mode"),
            "url": f"https://checkout.stripe.test/c/pay/{sid}",
            "expires_at": int(form["expires_at"]), "status": "open",
        })

    async def prices(self, request: Request) -> JSONResponse:
        form = await self._record(request)
        key = form.get("lookup_keys[0]")
        data = [{"id": LOOKUP_PRICES[key], "object": "price", "lookup_key": key}] if (
            key in LOOKUP_PRICES) else []
        return JSONResponse(
            {"object": "list", "data": data, "has_more": False, "url": "/v1/prices"})

    async def subscription(self, request: Request) -> JSONResponse:
        form = await self._record(request)
        sub_id = request.path_params["sub_id"]
        if "cancel_at_period_end" in form:
            self.cancel_at_period_end = form["cancel_at_period_end"] == "true"
        return JSONResponse(subscription_object(
            sub_id, status="active", cancel_at_period_end=self.cancel_at_period_end,
            price=form.get("items[0][price]", "price_creator_month"),
        ))

    async def portal(self, request: Request) -> JSONResponse:
        form = await self._record(request)
        return JSONResponse({"id": "bps_1", "object": "billing_portal.session",
                             "customer": form["customer"],
                             "url": "https://billing.stripe.test/p/session/bps_1"})


@contextmanager
def serve_fake_stripe() -> Iterator[tuple[FakeStripe, str]]:
    fake = FakeStripe()
    app = Starlette(routes=[
        Route("/v1/checkout/sessions", fake.sessions, methods=["POST"]),
        Route("/v1/prices", fake.prices, methods=["GET"]),
        Route("/v1/subscriptions/{sub_id}", fake.subscription, methods=["GET", "POST"]),
        Route("/v1/billing_portal/sessions", fake.portal, methods=["POST"]),
    ])
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


def ts(at: datetime) -> int:
    return int(at.timestamp())


def signed(payload: bytes, *, secret: str = WEBHOOK_SECRET) -> dict[str, str]:
    """Stripe's documented scheme: HMAC-SHA256 of "<timestamp>.<body>", header t=…,v1=…"""
    now = int(datetime.now(UTC).timestamp())
    mac = hmac.new(secret.encode(), f"{now}.".encode() + payload, hashlib.sha256).hexdigest()
    return {"Stripe-Signature": f"t={now},v1={mac}", "Content-Type": "application/json"}


def event(event_id: str, type_: str, obj: dict[str, Any], *, created: int | None = None) -> bytes:
    return json.dumps({
        "id": event_id, "object": "event", "api_version": "2024-06-20", "type": type_,
        "created": created if created is not None else int(time.time()),
        "livemode": False, "pending_webhooks": 1, "data": {"object": obj},
    }).encode()


def metadata(account_id: str, plan: str, interval: str) -> dict[str, str]:
    return {"sors_account_id": account_id, "plan_id": plan, "interval": interval}


def subscription_object(
    sub_id: str, *, status: str, cancel_at_period_end: bool = False, price: str,
    start: datetime | None = None, end: datetime | None = None, trial_end: datetime | None = None,
    meta: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "id": sub_id, "object": "subscription", "customer": "cus_test_1", "status": status,
        "cancel_at_period_end": cancel_at_period_end,
        "current_period_start": ts(start) if start else None,
        "current_period_end": ts(end) if end else None,
        "trial_end": ts(trial_end) if trial_end else None,
        "items": {"object": "list", "data": [
            {"id": "si_test_1", "object": "subscription_item", "price": {"id": price}}
        ]},
        "metadata": meta or {},
    }


def invoice_object(
    invoice_id: str, sub_id: str, *, amount_paid: int, billing_reason: str, price: str,
    start: datetime, end: datetime, meta: dict[str, str],
) -> dict[str, Any]:
    """An Invoice as API versions before 2025-03-31 send it (`subscription`,
    `subscription_details`, `line.price`)."""
    return {
        "id": invoice_id, "object": "invoice", "customer": "cus_test_1", "subscription": sub_id,
        "status": "paid", "paid": True, "amount_due": amount_paid, "amount_paid": amount_paid,
        "currency": "usd", "billing_reason": billing_reason,
        "subscription_details": {"metadata": meta},
        "lines": {"object": "list", "data": [{
            "id": f"il_{invoice_id}", "object": "line_item", "amount": amount_paid,
            "period": {"start": ts(start), "end": ts(end)}, "price": {"id": price},
        }]},
    }


def invoice_object_basil(
    invoice_id: str, sub_id: str, *, amount_paid: int, billing_reason: str, price: str,
    start: datetime, end: datetime, meta: dict[str, str],
) -> dict[str, Any]:
    """The same Invoice as API versions from 2025-03-31 send it (`parent`, `pricing`)."""
    return {
        "id": invoice_id, "object": "invoice", "customer": "cus_test_1", "status": "paid",
        "amount_due": amount_paid, "amount_paid": amount_paid, "currency": "usd",
        "billing_reason": billing_reason,
        "parent": {"type": "subscription_details",
                   "subscription_details": {"subscription": sub_id, "metadata": meta}},
        "lines": {"object": "list", "data": [{
            "id": f"il_{invoice_id}", "object": "line_item", "amount": amount_paid,
            "period": {"start": ts(start), "end": ts(end)},
            "pricing": {"type": "price_details", "price_details": {"price": price}},
        }]},
    }
