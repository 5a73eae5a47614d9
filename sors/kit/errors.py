"""One error base class and its RFC 9457 rendering.

Services raise `ApiError` subclasses (no HTTP types needed); the handlers in
`sors.kit.http` render them as `application/problem+json` with the request id.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ApiError(Exception):
    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"
    title: ClassVar[str] = "Internal error"

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extra = extra
        self.headers: dict[str, str] = {}

    def body(self, request_id: str | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"/errors/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        body.update(self.extra)
        if request_id:
            body["requestId"] = request_id
        return body


def _err(name: str, status: int, code: str, title: str) -> type[ApiError]:
    return type(name, (ApiError,), {"status": status, "code": code, "title": title})


MalformedRequest = _err("MalformedRequest", 400, "malformed_request", "Malformed request")
Unauthorized = _err("Unauthorized", 401, "unauthorized", "Unauthorized")
NotFound = _err("NotFound", 404, "not_found", "Not found")
PostNotFound = _err("PostNotFound", 404, "post_not_found", "Post not found")
ProfileNotFound = _err("ProfileNotFound", 404, "profile_not_found", "Profile not found")
JobNotFound = _err("JobNotFound", 404, "job_not_found", "Job not found")
AlertNotFound = _err("AlertNotFound", 404, "alert_not_found", "Alert not found")
AlertLimitReached = _err("AlertLimitReached", 409, "alert_limit_reached", "Alert limit reached")
UnconfirmedAddressLimit = _err(
    "UnconfirmedAddressLimit", 409, "unconfirmed_address_limit", "Too many unconfirmed addresses"
)
IdempotencyKeyInUse = _err(
    "IdempotencyKeyInUse", 409, "idempotency_key_in_use", "Idempotency key in use"
)
RoleForbidden = _err("RoleForbidden", 403, "role_forbidden", "Not allowed for this role")
SubscriptionExists = _err(
    "SubscriptionExists", 409, "subscription_exists", "The account already has a subscription"
)
PayloadTooLarge = _err("PayloadTooLarge", 413, "payload_too_large", "Payload too large")
UnsupportedUrl = _err("UnsupportedUrl", 422, "unsupported_url", "Unsupported URL")
ShortLinkNotSupported = _err(
    "ShortLinkNotSupported", 422, "short_link_not_supported", "Short links are not supported"
)
IdempotencyKeyReused = _err(
    "IdempotencyKeyReused", 422, "idempotency_key_reused", "Idempotency key reused"
)
Unavailable = _err("Unavailable", 503, "unavailable", "Service unavailable")


class ValidationFailed(ApiError):
    status = 422
    code = "validation_error"
    title = "Validation error"

    def __init__(self, errors: list[dict[str, str]], detail: str | None = None) -> None:
        first = errors[0] if errors else {"field": "", "message": "invalid"}
        where = f"{first['field']}: " if first.get("field") else ""
        super().__init__(detail or f"{where}{first['message']}", errors=errors)

    @classmethod
    def single(cls, field: str, message: str) -> ValidationFailed:
        return cls([{"field": field, "message": message}])


class UnknownField(ValidationFailed):
    """A body or query field the endpoint does not know (a typo must not become a paid,
    unfiltered call); the message suggests the close known field."""

    code = "unknown_field"
    title = "Unknown field"


class InsufficientCredits(ApiError):
    status = 402
    code = "insufficient_credits"
    title = "Insufficient credits"

    def __init__(self, required: int, balance: int) -> None:
        super().__init__(
            f"This call costs {required} credits; the balance is {balance}. "
            "Top up with POST /api/v1/credits/topup.",
            required=required,
            balance=balance,
        )
        self.required = required
        self.balance = balance


class SpendCapReached(ApiError):
    status = 402
    code = "spend_cap_reached"
    title = "Daily spend cap reached"

    def __init__(self, required: int, cap: int, spent_today: int, balance: int) -> None:
        super().__init__(
            f"This call costs {required} credits; this API key may spend {cap} credits per "
            f"UTC day and has spent {spent_today} today. The cap resets at 00:00 UTC; an "
            "uncapped key of the account can raise it with PATCH /api/v1/keys/{keyId}.",
            required=required, balance=balance, cap=cap, spentToday=spent_today,
        )
        self.balance = balance


class RateLimited(ApiError):
    status = 429
    code = "rate_limited"
    title = "Too many requests"

    def __init__(self, retry_after: int, detail: str | None = None) -> None:
        super().__init__(
            detail or f"Rate limit reached; retry in {retry_after} seconds.", retryAfter=retry_after
        )
        self.headers["Retry-After"] = str(retry_after)
WebhookLimitReached = _err(
    "WebhookLimitReached", 409, "webhook_limit_reached", "Webhook endpoint limit reached"
)
WebhookDisabled = _err("WebhookDisabled", 409, "webhook_disabled", "Webhook endpoint disabled")
UnsafeUrl = _err("UnsafeUrl", 422, "unsafe_url", "URL refused")
