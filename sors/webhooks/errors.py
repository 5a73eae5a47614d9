"""The webhooks domain's errors."""

from __future__ import annotations

from sors.kit.errors import ApiError


class WebhookLimitReached(ApiError):
    status = 409
    code = "webhook_limit_reached"
    title = "Webhook endpoint limit reached"


class WebhookDisabled(ApiError):
    status = 409
    code = "webhook_disabled"
    title = "Webhook endpoint disabled"


class UnsafeUrl(ApiError):
    status = 422
    code = "unsafe_url"
    title = "URL refused"
