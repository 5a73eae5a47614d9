"""Payment providers behind one interface; `get_provider(settings)` picks the configured one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sors.payments.providers.base import (
    SUBSCRIPTION_KINDS,
    WEBHOOK_TOLERANCE_SECONDS,
    CheckoutCreationError,
    CheckoutLink,
    CheckoutRequest,
    EventKind,
    PaymentEvent,
    PaymentProvider,
    PaymentProviderError,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
    SubscriptionUpdateError,
    WebhookPayloadError,
    WebhookSignatureError,
    WebhooksNotSupportedError,
)
from sors.payments.providers.local import LocalProvider
from sors.payments.providers.stripe_provider import StripeProvider

if TYPE_CHECKING:
    from sors.config import Settings

__all__ = [
    "SUBSCRIPTION_KINDS",
    "WEBHOOK_TOLERANCE_SECONDS",
    "CheckoutCreationError",
    "CheckoutLink",
    "CheckoutRequest",
    "EventKind",
    "LocalProvider",
    "PaymentEvent",
    "PaymentProvider",
    "PaymentProviderError",
    "StripeProvider",
    "SubscriptionCheckoutRequest",
    "SubscriptionFacts",
    "SubscriptionUpdateError",
    "WebhookPayloadError",
    "WebhookSignatureError",
    "WebhooksNotSupportedError",
    "get_provider",
]


def get_provider(settings: Settings) -> PaymentProvider:
    """The configured provider; the local one only where it may run (payments.policy)."""
    from sors.payments.policy import require_payments

    require_payments(settings)
    if settings.payments.provider == "local":
        return LocalProvider(settings.base_url)
    if settings.payments.provider == "stripe":
        if not settings.payments.stripe_secret_key or not settings.payments.stripe_webhook_secret:
            raise ValueError(
                "SORS_PAYMENTS=stripe needs SORS_STRIPE_SECRET_KEY and SORS_STRIPE_WEBHOOK_SECRET"
            )
        return StripeProvider(
            settings.payments.stripe_secret_key,
            settings.payments.stripe_webhook_secret,
            api_base=settings.payments.stripe_api_base,
        )
    raise ValueError(f"unknown payment provider {settings.payments.provider!r}")
