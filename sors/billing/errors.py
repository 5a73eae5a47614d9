"""The money errors: a charge the balance, or the calling key's daily cap, cannot cover."""

from __future__ import annotations

from sors.kit.errors import ApiError


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
