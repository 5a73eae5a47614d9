"""When the local payment provider may run, and when checkout without a key is open.

The local provider grants credits for a click, with no money: right for the demo and the
tests (the simulated platforms), wrong anywhere people could pay. So it runs only with
`SORS_PLATFORM_SOURCE=sim`, or with `SORS_PAYMENTS_LOCAL_ALLOWED=true` (a staging install),
which `sors serve` and `sors doctor` announce loudly. Keyless checkout (a new account and key
per payment) is on in the demo and off elsewhere unless `SORS_KEYLESS_CHECKOUT_ENABLED` says.
"""

from __future__ import annotations

from sors.config import Settings
from sors.payments.errors import PaymentsUnavailable


def local_allowed(settings: Settings) -> bool:
    return settings.local_payments_allowed


def local_refused(settings: Settings) -> bool:
    """The local provider is configured where it may not run."""
    return settings.payments.provider == "local" and not local_allowed(settings)


def require_payments(settings: Settings) -> None:
    """Refuse (503) a payment this server cannot take honestly."""
    if local_refused(settings):
        raise PaymentsUnavailable(
            "This server takes no payments: the local payment provider grants credits without "
            "money and runs only with the simulated platforms. Set SORS_PAYMENTS=stripe (with "
            "SORS_STRIPE_SECRET_KEY and SORS_STRIPE_WEBHOOK_SECRET); docs/OPERATIONS.md, "
            "\"Before going live\"."
        )


def keyless_checkout_open(settings: Settings) -> bool:
    return settings.keyless_checkout_open


def warning(settings: Settings) -> str | None:
    """What `sors serve` and `sors doctor` say about payments on a live install, if anything."""
    if settings.platform_source == "sim" or settings.payments.provider != "local":
        return None
    if settings.payments.local_allowed:
        return ("SORS_PAYMENTS_LOCAL_ALLOWED=true: the local payment provider GRANTS CREDITS "
                "WITHOUT MONEY to anyone who follows a checkout link. Never on an install "
                "people can reach; set SORS_PAYMENTS=stripe.")
    return ("SORS_PAYMENTS=local on a live install: top-ups, keyless checkout and plans are "
            "refused (503 payments_unavailable) until SORS_PAYMENTS=stripe is set.")
