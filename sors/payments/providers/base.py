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

EventKind = Literal[
    "checkout_completed",
    "checkout_expired",
    # subscriptions (sors.subscriptions acts on them)
    "subscription_started",  # a subscription-mode checkout completed
    "subscription_updated",
    "subscription_deleted",
    "invoice_paid",
    "invoice_payment_failed",
    "trial_will_end",
    "other",
]
SUBSCRIPTION_KINDS: frozenset[str] = frozenset(
    {
        "subscription_started",
        "subscription_updated",
        "subscription_deleted",
        "invoice_paid",
        "invoice_payment_failed",
        "trial_will_end",
    }
)
Interval = Literal["month", "year"]


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


class SubscriptionUpdateError(PaymentProviderError):
    """The provider could not change the subscription (down, refused): 503."""


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
class SubscriptionCheckoutRequest:
    session_id: str  # ours (a subscription checkout); the provider echoes it back
    account_id: str
    plan_id: str
    interval: Interval
    price_id: str | None  # the provider's price, when configured (Stripe)
    trial_days: int  # 0: no trial
    email: str | None
    customer_id: str | None  # the provider's customer, when the account has one
    success_url: str
    cancel_url: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class SubscriptionFacts:
    """What a provider says about a subscription or one of its invoices. Every field may be
    missing: events arrive in any order and each carries only part of the picture."""

    subscription_id: str | None = None
    customer_id: str | None = None
    status: str | None = None  # the provider's status (trialing, active, past_due, …)
    cancel_at_period_end: bool | None = None
    period_start: datetime | None = None
    period_end: datetime | None = None
    trial_end: datetime | None = None
    price_id: str | None = None
    # from the metadata we set at checkout (and on plan changes)
    account_id: str | None = None
    plan_id: str | None = None
    interval: str | None = None
    # invoices
    invoice_id: str | None = None
    amount_paid_cents: int | None = None
    billing_reason: str | None = None


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
    created_at: datetime | None = None  # when the provider created the event
    subscription: SubscriptionFacts | None = None  # subscription and invoice events


@runtime_checkable
class PaymentProvider(Protocol):
    name: str

    async def create_checkout(self, req: CheckoutRequest) -> CheckoutLink: ...

    async def create_subscription_checkout(
        self, req: SubscriptionCheckoutRequest
    ) -> CheckoutLink: ...

    async def update_subscription(
        self,
        subscription_id: str,
        *,
        cancel_at_period_end: bool | None = None,
        price_id: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> SubscriptionFacts | None:
        """Change a subscription the provider bills (cancel at period end, resume, a new
        price with proration; `price_id` may be a lookup key `sors_<plan>_<interval>`).
        None: the provider keeps no subscriptions (local: ours are the only record)."""
        ...

    async def portal_url(self, customer_id: str, return_url: str) -> str | None:
        """The provider's own page where a customer manages billing; None: none."""
        ...

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
