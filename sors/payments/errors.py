"""The errors of payments."""

from __future__ import annotations

from sors.kit.errors import ApiError


class PaymentsUnavailable(ApiError):
    status = 503
    code = "payments_unavailable"
    title = "Payments unavailable"
