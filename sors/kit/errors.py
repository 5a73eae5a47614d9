"""One error base class and its RFC 9457 rendering, and the generic errors any floor raises.

Services raise `ApiError` subclasses (no HTTP types needed); the handlers in
`sors.kit.handlers` render them as `application/problem+json` with the request id. A
domain's own errors are classes in that domain (`<domain>/errors.py`).
"""

from __future__ import annotations


class ApiError(Exception):
    # Each subclass states its own; an instance may differ (an HTTP error Starlette raised).
    status: int = 500
    code: str = "internal_error"
    title: str = "Internal error"

    def __init__(self, detail: str | None = None, **extra: object) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extra = extra
        self.headers: dict[str, str] = {}

    def body(self, request_id: str | None) -> dict[str, object]:
        """RFC 9457's members and this service's extensions (`errors`, `balance`, …)."""
        body: dict[str, object] = {
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


class MalformedRequest(ApiError):
    status = 400
    code = "malformed_request"
    title = "Malformed request"


class Unauthorized(ApiError):
    status = 401
    code = "unauthorized"
    title = "Unauthorized"


class NotFound(ApiError):
    status = 404
    code = "not_found"
    title = "Not found"


class IdempotencyKeyInUse(ApiError):
    status = 409
    code = "idempotency_key_in_use"
    title = "Idempotency key in use"


class PayloadTooLarge(ApiError):
    status = 413
    code = "payload_too_large"
    title = "Payload too large"


class IdempotencyKeyReused(ApiError):
    status = 422
    code = "idempotency_key_reused"
    title = "Idempotency key reused"


class Unavailable(ApiError):
    status = 503
    code = "unavailable"
    title = "Service unavailable"


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


class RateLimited(ApiError):
    status = 429
    code = "rate_limited"
    title = "Too many requests"

    def __init__(self, retry_after: int, detail: str | None = None) -> None:
        super().__init__(
            detail or f"Rate limit reached; retry in {retry_after} seconds.", retryAfter=retry_after
        )
        self.headers["Retry-After"] = str(retry_after)
