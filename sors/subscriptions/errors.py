"""The errors of selling and holding a plan."""

from __future__ import annotations

from sors.kit.errors import ApiError


class SubscriptionExists(ApiError):
    status = 409
    code = "subscription_exists"
    title = "The account already has a subscription"


class MemberExists(ApiError):
    status = 409
    code = "member_exists"
    title = "Already a member"
