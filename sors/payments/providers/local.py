"""The embedded provider: checkout is the service's own page with a "pay" button.

For demos and tests. `GET {base_url}/checkout/{session_id}` shows the page and its form posts
to `/checkout/{session_id}/pay`, which completes the payment inside the service, so no
webhook ever arrives.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from urllib.parse import quote

from sors.payments.providers.base import (
    CheckoutLink,
    CheckoutRequest,
    PaymentEvent,
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

    def parse_webhook(
        self, payload: bytes, headers: Mapping[str, str], now: datetime | None = None
    ) -> PaymentEvent:
        raise WebhooksNotSupportedError("the local payment provider receives no webhooks")
