"""The embedded provider: checkout is the service's own page with a "pay" button.

For demos and tests. `GET {base_url}/checkout/{session_id}` shows the page and its form posts
to `/checkout/{session_id}/pay`, which completes the payment inside the service, so no
webhook ever arrives. Subscriptions likewise: `/subscribe/{id}` is the page, and the
scheduler bills each renewal itself (sors.subscriptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from urllib.parse import quote

from sors.payments.providers.base import (
    CheckoutLink,
    CheckoutRequest,
    PaymentEvent,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
    WebhooksNotSupportedError,
)


class LocalProvider:
    name = "local"

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def checkout_url(self, session_id: str) -> str:
        return f"{self.base_url}/checkout/{quote(session_id, safe='')}"

    async def create_checkout(self, req: CheckoutRequest) -> CheckoutLink:
        req.amount_cents  # noqa: B018 -- refuse a malformed price here, as Stripe would
        return CheckoutLink(
            provider_session_id=req.session_id,
            checkout_url=self.checkout_url(req.session_id),
            expires_at=req.expires_at,
        )

    async def create_subscription_checkout(self, req: SubscriptionCheckoutRequest) -> CheckoutLink:
        return CheckoutLink(
            provider_session_id=req.session_id,
            checkout_url=f"{self.base_url}/subscribe/{quote(req.session_id, safe='')}",
            expires_at=req.expires_at,
        )

    async def update_subscription(
        self,
        subscription_id: str,
        *,
        cancel_at_period_end: bool | None = None,
        price_id: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> SubscriptionFacts | None:
        return None  # the service's own subscription row is the only record

    async def portal_url(self, customer_id: str, return_url: str) -> str | None:
        return None

    def parse_webhook(
        self, payload: bytes, headers: Mapping[str, str], now: datetime | None = None
    ) -> PaymentEvent:
        raise WebhooksNotSupportedError("the local payment provider receives no webhooks")
