"""The alerts domain's errors."""

from __future__ import annotations

from sors.kit.errors import ApiError


class AlertNotFound(ApiError):
    status = 404
    code = "alert_not_found"
    title = "Alert not found"


class AlertLimitReached(ApiError):
    status = 409
    code = "alert_limit_reached"
    title = "Alert limit reached"


class UnconfirmedAddressLimit(ApiError):
    status = 409
    code = "unconfirmed_address_limit"
    title = "Too many unconfirmed addresses"
