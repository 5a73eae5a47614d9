"""The boards domain's errors."""

from __future__ import annotations

from sors.kit.errors import ApiError


class BoardLimitReached(ApiError):
    status = 409
    code = "board_limit_reached"
    title = "Board limit reached"


class BoardItemLimitReached(ApiError):
    status = 409
    code = "board_item_limit_reached"
    title = "Board item limit reached"


class ShareRevoked(ApiError):
    status = 410
    code = "share_revoked"
    title = "Share link revoked"
