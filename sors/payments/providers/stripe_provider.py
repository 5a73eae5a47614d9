"""Stripe Checkout through the official SDK: hosted payment pages and signed webhooks."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

import stripe
import structlog
from stripe.params import SubscriptionUpdateParams
from stripe.params.checkout import SessionCreateParams

from sors.payments.providers import stripe_subscriptions as billing
from sors.payments.providers.base import (
    WEBHOOK_TOLERANCE_SECONDS,
    CheckoutCreationError,
    CheckoutLink,
    CheckoutRequest,
    EventKind,
    PaymentEvent,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
    SubscriptionUpdateError,
    WebhookPayloadError,
    WebhookSignatureError,
    header,
)

log = structlog.get_logger(__name__)

# Stripe accepts a Checkout Session `expires_at` between 30 minutes and 24 hours after
# creation; the margins absorb the time the request takes to arrive.
MIN_SESSION_LIFETIME = timedelta(minutes=30, seconds=60)
MAX_SESSION_LIFETIME = timedelta(hours=24, seconds=-60)


def _wall_clock() -> datetime:
    return datetime.now(UTC)


class StripeProvider:
    name = "stripe"

    def __init__(
        self,
        secret_key: str,
        webhook_secret: str,
        api_base: str | None = None,
        *,
        timeout: float = 30.0,
        max_network_retries: int = 2,
        clock: Callable[[], datetime] = _wall_clock,
    ) -> None:
        if not secret_key or not webhook_secret:
            raise ValueError("the stripe provider needs a secret key and a webhook secret")
        self._secret_key = secret_key
        self._webhook_secret = webhook_secret
        self.api_base = api_base.rstrip("/") if api_base else None
        self.timeout = timeout
        self.max_network_retries = max_network_retries
        self._clock = clock

    def __repr__(self) -> str:  # keys stay out of logs and tracebacks
        return f"StripeProvider(api_base={self.api_base!r})"

    def _client(self) -> tuple[stripe.StripeClient, stripe.HTTPXClient]:
        # A fresh async HTTP client per call: an httpx pool must not outlive the event loop
        # that opened it, and checkouts are rare enough that reuse buys nothing.
        http = stripe.HTTPXClient(timeout=self.timeout)
        client = stripe.StripeClient(
            self._secret_key,
            base_addresses={"api": self.api_base} if self.api_base else None,
            max_network_retries=self.max_network_retries,
            http_client=http,
        )
        return client, http

    def checkout_params(self, req: CheckoutRequest) -> SessionCreateParams:
        expires_at = self._expiry(req.expires_at)
        metadata = {"sors_session_id": req.session_id, "pack_id": req.pack_id}
        if req.account_id:
            metadata["account_id"] = req.account_id
        params: SessionCreateParams = {
            "mode": "payment",
            "line_items": [
                {
                    "price_data": {
                        "currency": "usd",
                        "unit_amount": req.amount_cents,
                        "product_data": {"name": f"sors credits: {req.credits:,} ({req.pack_id})"},
                    },
                    "quantity": 1,
                }
            ],
            "client_reference_id": req.session_id,
            "metadata": metadata,
            "payment_intent_data": {"metadata": metadata},
            "success_url": req.success_url,
            "cancel_url": req.cancel_url,
            "expires_at": int(expires_at.timestamp()),
        }
        if req.email:
            params["customer_email"] = req.email
        return params

    async def create_checkout(self, req: CheckoutRequest) -> CheckoutLink:
        params = self.checkout_params(req)
        client, http = self._client()
        try:
            # Our session id as the idempotency key: a retried call cannot open two sessions.
            session = await client.v1.checkout.sessions.create_async(
                params,
                {"idempotency_key": f"sors-checkout-{req.session_id}"},
            )
        except stripe.StripeError as exc:
            log.warning(
                "stripe.checkout_failed",
                session_id=req.session_id,
                error=type(exc).__name__,
                http_status=exc.http_status,
                code=exc.code,
            )
            raise CheckoutCreationError(
                f"Stripe refused the checkout: {exc.user_message or type(exc).__name__}"
            ) from exc
        finally:
            await http.close_async()
        data = session.to_dict()
        url, session_id = data.get("url"), data.get("id")
        if not url or not session_id:
            raise CheckoutCreationError("Stripe returned a checkout session without an id or url")
        expires = data.get("expires_at") or params["expires_at"]
        return CheckoutLink(
            provider_session_id=str(session_id),
            checkout_url=str(url),
            expires_at=datetime.fromtimestamp(int(expires), UTC),
        )

    def _expiry(self, wanted: datetime) -> datetime:
        now = self._clock()
        return min(max(wanted, now + MIN_SESSION_LIFETIME), now + MAX_SESSION_LIFETIME)

    async def _price_id(self, client: stripe.StripeClient, req: SubscriptionCheckoutRequest) -> str:
        if req.price_id:
            return req.price_id
        key = billing.lookup_key(req.plan_id, req.interval)
        try:
            return await self._price_by_lookup_key(client, key)
        except LookupError as exc:
            raise CheckoutCreationError(
                f"No Stripe price for {req.plan_id}/{req.interval}: set "
                f"SORS_STRIPE_PRICE_{req.plan_id.upper()}_{req.interval.upper()} or give a "
                f"price the lookup key {key}"
            ) from exc

    async def _price_by_lookup_key(self, client: stripe.StripeClient, key: str) -> str:
        prices = await client.v1.prices.list_async(
            {"lookup_keys": [key], "active": True, "limit": 1}
        )
        found = prices.to_dict().get("data") or []
        if not found:
            raise LookupError(key)
        return str(found[0]["id"])

    async def create_subscription_checkout(self, req: SubscriptionCheckoutRequest) -> CheckoutLink:
        client, http = self._client()
        try:
            price_id = await self._price_id(client, req)
            params = billing.checkout_params(req, price_id, self._expiry(req.expires_at))
            session = await client.v1.checkout.sessions.create_async(
                params,
                {"idempotency_key": f"sors-subscribe-{req.session_id}"},
            )
        except stripe.StripeError as exc:
            log.warning(
                "stripe.subscription_checkout_failed",
                session_id=req.session_id,
                error=type(exc).__name__,
                http_status=exc.http_status,
            )
            raise CheckoutCreationError(
                f"Stripe refused the checkout: {exc.user_message or type(exc).__name__}"
            ) from exc
        finally:
            await http.close_async()
        data = session.to_dict()
        if not data.get("url") or not data.get("id"):
            raise CheckoutCreationError("Stripe returned a checkout session without an id or url")
        return CheckoutLink(
            provider_session_id=str(data["id"]),
            checkout_url=str(data["url"]),
            expires_at=datetime.fromtimestamp(
                int(data.get("expires_at") or params["expires_at"]), UTC
            ),
        )

    async def update_subscription(
        self,
        subscription_id: str,
        *,
        cancel_at_period_end: bool | None = None,
        price_id: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> SubscriptionFacts | None:
        params: SubscriptionUpdateParams = {}
        if cancel_at_period_end is not None:
            params["cancel_at_period_end"] = cancel_at_period_end
        if metadata:
            params["metadata"] = metadata
        client, http = self._client()
        try:
            if price_id is not None and price_id.startswith("sors_"):
                # Not a price id (those start "price_"): a lookup key sors_<plan>_<interval>.
                price_id = await self._price_by_lookup_key(client, price_id)
            if price_id is not None:
                current = (await client.v1.subscriptions.retrieve_async(subscription_id)).to_dict()
                item = (current.get("items") or {}).get("data") or [{}]
                # A plan change is billed at once, prorated: the difference is invoiced now
                # and its invoice.paid grants the difference in credits.
                params["items"] = [{"id": item[0].get("id"), "price": price_id}]
                params["proration_behavior"] = "always_invoice"
            sub = await client.v1.subscriptions.update_async(subscription_id, params)
        except LookupError as exc:
            raise SubscriptionUpdateError(f"No Stripe price has the lookup key {exc}") from exc
        except stripe.StripeError as exc:
            log.warning("stripe.subscription_update_failed", error=type(exc).__name__)
            raise SubscriptionUpdateError(
                f"Stripe refused the change: {exc.user_message or type(exc).__name__}"
            ) from exc
        finally:
            await http.close_async()
        return billing.subscription_facts(sub.to_dict())

    async def portal_url(self, customer_id: str, return_url: str) -> str | None:
        client, http = self._client()
        try:
            portal = await client.v1.billing_portal.sessions.create_async(
                {"customer": customer_id, "return_url": return_url}
            )
        except stripe.StripeError as exc:
            raise SubscriptionUpdateError("Stripe's customer portal is not available") from exc
        finally:
            await http.close_async()
        url = portal.to_dict().get("url")
        return str(url) if url else None

    def parse_webhook(
        self, payload: bytes, headers: Mapping[str, str], now: datetime | None = None
    ) -> PaymentEvent:
        signature = header(headers, "Stripe-Signature")
        if not signature:
            raise WebhookSignatureError("missing Stripe-Signature header")
        try:
            # The SDK checks the HMAC; its own age check reads time.time(), so we pass no
            # tolerance and check the age below against the injectable clock.
            stripe.WebhookSignature.verify_header(payload, signature, self._webhook_secret, None)
        except (stripe.SignatureVerificationError, UnicodeDecodeError) as exc:
            raise WebhookSignatureError("invalid Stripe signature") from exc
        timestamp = _signed_timestamp(signature)
        now_ts = (now or self._clock()).timestamp()
        if abs(now_ts - timestamp) > WEBHOOK_TOLERANCE_SECONDS:
            raise WebhookSignatureError("Stripe signature timestamp outside the tolerance")
        return _event_from_payload(payload)


def _signed_timestamp(signature: str) -> int:
    # The same reading as the SDK's: the first `t=` item of the header.
    for item in signature.split(","):
        key, _, value = item.partition("=")
        if key.strip() == "t":
            try:
                return int(value)
            except ValueError:
                break
    raise WebhookSignatureError("no timestamp in Stripe-Signature")


def _event_from_payload(payload: bytes) -> PaymentEvent:
    try:
        event = json.loads(payload)
        event_id = event["id"]
        event_type = event["type"]
        obj = event["data"]["object"]
    except (ValueError, KeyError, TypeError) as exc:
        raise WebhookPayloadError("the webhook body is not a Stripe event") from exc
    if not isinstance(obj, dict) or not isinstance(event_id, str):
        raise WebhookPayloadError("the webhook body is not a Stripe event")

    created = event.get("created")
    created_at = datetime.fromtimestamp(created, UTC) if isinstance(created, int) else None
    sub = billing.read_event(str(event_type), obj)
    if sub is not None:
        sub_kind, facts = sub
        return PaymentEvent(
            event_id=event_id,
            kind=sub_kind,
            provider_session_id=obj.get("id") if obj.get("object") == "checkout.session" else None,
            session_id=obj.get("client_reference_id")
            if obj.get("object") == "checkout.session"
            else None,
            amount_cents=facts.amount_paid_cents,
            currency=obj.get("currency"),
            customer_email=obj.get("customer_email"),
            event_type=str(event_type),
            created_at=created_at,
            subscription=facts,
        )

    kind: EventKind = "other"
    if event_type in ("checkout.session.completed", "checkout.session.async_payment_succeeded"):
        # A delayed payment method completes the session unpaid; the money (and our credits)
        # comes with async_payment_succeeded.
        if obj.get("payment_status") == "paid":
            kind = "checkout_completed"
    elif event_type == "checkout.session.expired":
        kind = "checkout_expired"

    is_session = obj.get("object") == "checkout.session"
    metadata = obj.get("metadata") or {}
    details = obj.get("customer_details") or {}
    return PaymentEvent(
        event_id=event_id,
        kind=kind,
        provider_session_id=obj.get("id") if is_session else None,
        session_id=(obj.get("client_reference_id") or metadata.get("sors_session_id"))
        if is_session
        else None,
        amount_cents=obj.get("amount_total") if is_session else None,
        currency=obj.get("currency"),
        customer_email=details.get("email") or obj.get("customer_email"),
        event_type=str(event_type),
        created_at=created_at,
    )
