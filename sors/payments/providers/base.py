"""The payment provider seam: create a hosted checkout, read the provider's webhooks.

The billing service owns checkout sessions (our `session_id`), credits and the ledger; a
provider only turns a `CheckoutRequest` into a payment link and turns a signed webhook into a
`PaymentEvent` that names our session again. Granting credits exactly once is the billing
service's job (unique event id, unique session grant), not the provider's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Literal, Protocol, runtime_checkable

WEBHOOK_TOLERANCE_SECONDS = 300

EventKind = Literal["checkout_completed", "checkout_expired", "other"]


class PaymentProviderError(Exception):
    """Base of every provider failure."""


class CheckoutCreationError(PaymentProviderError):
    """The provider could not create the checkout (down, refused, misconfigured): 503."""


class WebhookSignatureError(PaymentProviderError):
    """The webhook cannot be trusted: no or bad signature, or a stale timestamp. The API
    answers 400 and does nothing."""


class WebhookPayloadError(WebhookSignatureError):
    """Correctly signed, but not an event we can read. A subclass so one `except` (→ 400)
    covers both."""


class WebhooksNotSupportedError(PaymentProviderError):
    """This provider receives no webhooks (the local provider completes payments itself)."""


@dataclass(frozen=True, slots=True)
class CheckoutRequest:
    session_id: str  # ours; the provider echoes it back in its events
    pack_id: str
    credits: int
    price_usd: Decimal | int | str  # dollars, e.g. Decimal("15") or "14.99"
    account_id: str | None  # None: keyless checkout, the account is created on payment
    email: str | None
    success_url: str
    cancel_url: str
    expires_at: datetime

    @property
    def amount_cents(self) -> int:
        """The price in whole cents; refuses fractions of a cent and non-positive prices."""
        try:
            cents = Decimal(str(self.price_usd)) * 100
        except InvalidOperation as exc:
            raise ValueError(f"price_usd is not a number: {self.price_usd!r}") from exc
        if cents != cents.to_integral_value() or cents <= 0:
            raise ValueError(f"price_usd must be a positive amount of whole cents: {cents}")
        return int(cents)


@dataclass(frozen=True, slots=True)
class CheckoutLink:
    provider_session_id: str
    checkout_url: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class PaymentEvent:
    event_id: str  # the provider's event id: the deduplication key
    kind: EventKind
    provider_session_id: str | None
    session_id: str | None  # ours, from client_reference_id / metadata
    amount_cents: int | None
    currency: str | None
    customer_email: str | None
    event_type: str = ""  # the provider's own name for the event, for logs


@runtime_checkable
class PaymentProvider(Protocol):
    name: str

    async def create_checkout(self, req: CheckoutRequest) -> CheckoutLink: ...

    def parse_webhook(
        self, payload: bytes, headers: Mapping[str, str], now: datetime | None = None
    ) -> PaymentEvent:
        """Verify and read one webhook delivery. `now` is wall-clock time (never the
        simulated clock: the provider signs with real time). Raises `WebhookSignatureError`."""
        ...


def header(headers: Mapping[str, str], name: str) -> str | None:
    """Case-insensitive lookup that works for plain dicts as well as Starlette headers."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None
