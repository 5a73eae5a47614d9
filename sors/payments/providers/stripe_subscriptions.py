"""Stripe Billing, read and written as plain data: the Checkout Session of a subscription,
and what subscription and invoice events say.

Pure functions (no SDK calls), so the Stripe provider stays a thin transport and the
readings are testable on their own. Stripe's objects arrive as JSON not read yet
(`Mapping[str, object]`): each value is checked where it is read. Both shapes of Stripe's
objects are read: the classic one (`invoice.subscription`,
`subscription.current_period_end`, `line.price`) and the one of API versions from
2025-03-31 (`invoice.parent.subscription_details`, the period on the subscription item,
`line.pricing.price_details.price`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sors.payments.providers.base import (
    EventKind,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
)

if TYPE_CHECKING:
    from stripe.params.checkout import SessionCreateParams


def lookup_key(plan_id: str, interval: str) -> str:
    """The lookup key a Stripe price of a plan carries when no price id is configured."""
    return f"sors_{plan_id}_{interval}"


def metadata(
    account_id: str, plan_id: str, interval: str, session_id: str | None = None
) -> dict[str, str]:
    out = {"sors_account_id": account_id, "plan_id": plan_id, "interval": interval}
    if session_id:
        out["sors_session_id"] = session_id
    return out


def checkout_params(
    req: SubscriptionCheckoutRequest, price_id: str, expires_at: datetime
) -> SessionCreateParams:
    meta = metadata(req.account_id, req.plan_id, req.interval, req.session_id)
    params: SessionCreateParams = {
        "mode": "subscription",
        "line_items": [{"price": price_id, "quantity": 1}],
        "client_reference_id": req.session_id,
        "metadata": meta,
        "subscription_data": {"metadata": meta},
        "success_url": req.success_url,
        "cancel_url": req.cancel_url,
        "expires_at": int(expires_at.timestamp()),
    }
    if req.trial_days > 0:
        params["subscription_data"]["trial_period_days"] = req.trial_days
    if req.customer_id:
        params["customer"] = req.customer_id
    elif req.email:
        params["customer_email"] = req.email
    return params


def _ts(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return datetime.fromtimestamp(int(value), UTC)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _id(value: object) -> str | None:
    """An id whether Stripe sent it bare or expanded into its object."""
    if isinstance(value, dict):
        value = value.get("id")
    return _text(value)


def _dict(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _first(items: object) -> Mapping[str, object]:
    data = _dict(items).get("data")
    return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}


def _owner(meta: Mapping[str, object]) -> tuple[str | None, str | None, str | None]:
    """(account, plan, interval) from the metadata we set at checkout."""
    return (
        _text(meta.get("sors_account_id")), _text(meta.get("plan_id")), _text(meta.get("interval"))
    )


def subscription_facts(obj: Mapping[str, object]) -> SubscriptionFacts:
    """A Stripe Subscription object."""
    item = _first(obj.get("items"))
    account_id, plan_id, interval = _owner(_dict(obj.get("metadata")))
    return SubscriptionFacts(
        subscription_id=_id(obj.get("id")),
        customer_id=_id(obj.get("customer")),
        status=_text(obj.get("status")),
        cancel_at_period_end=bool(obj.get("cancel_at_period_end")),
        period_start=_ts(obj.get("current_period_start") or item.get("current_period_start")),
        period_end=_ts(obj.get("current_period_end") or item.get("current_period_end")),
        trial_end=_ts(obj.get("trial_end")),
        price_id=_id(_dict(item.get("price")).get("id") or item.get("price")),
        account_id=account_id, plan_id=plan_id, interval=interval,
    )


def invoice_facts(obj: Mapping[str, object]) -> SubscriptionFacts:
    """A Stripe Invoice object: the subscription period its first line bills (not the
    invoice's own `period_*`, which for a renewal is the period just ended)."""
    details = _dict(obj.get("subscription_details")) or _dict(
        _dict(obj.get("parent")).get("subscription_details")
    )
    line = _first(obj.get("lines"))
    period = _dict(line.get("period"))
    price = _id(line.get("price")) or _id(
        _dict(_dict(line.get("pricing")).get("price_details")).get("price")
    )
    amount = obj.get("amount_paid")
    account_id, plan_id, interval = _owner(_dict(details.get("metadata")))
    return SubscriptionFacts(
        subscription_id=_id(obj.get("subscription")) or _id(details.get("subscription")),
        customer_id=_id(obj.get("customer")),
        period_start=_ts(period.get("start")),
        period_end=_ts(period.get("end")),
        price_id=price,
        invoice_id=_id(obj.get("id")),
        amount_paid_cents=amount if isinstance(amount, int) and amount >= 0 else None,
        billing_reason=_text(obj.get("billing_reason")),
        account_id=account_id, plan_id=plan_id, interval=interval,
    )


def session_facts(obj: Mapping[str, object]) -> SubscriptionFacts:
    """A completed Checkout Session in subscription mode."""
    account_id, plan_id, interval = _owner(_dict(obj.get("metadata")))
    return SubscriptionFacts(
        subscription_id=_id(obj.get("subscription")),
        customer_id=_id(obj.get("customer")),
        account_id=account_id, plan_id=plan_id, interval=interval,
    )


_SUBSCRIPTION_EVENTS: dict[str, EventKind] = {
    "customer.subscription.created": "subscription_updated",
    "customer.subscription.updated": "subscription_updated",
    "customer.subscription.paused": "subscription_updated",
    "customer.subscription.resumed": "subscription_updated",
    "customer.subscription.deleted": "subscription_deleted",
    "customer.subscription.trial_will_end": "trial_will_end",
}


def read_event(
    event_type: str, obj: Mapping[str, object]
) -> tuple[EventKind, SubscriptionFacts] | None:
    """The subscription reading of one event, or None when it is not about subscriptions."""
    if event_type in _SUBSCRIPTION_EVENTS and obj.get("object") == "subscription":
        return _SUBSCRIPTION_EVENTS[event_type], subscription_facts(obj)
    if obj.get("object") == "invoice":
        if event_type == "invoice.paid":
            return "invoice_paid", invoice_facts(obj)
        if event_type == "invoice.payment_failed":
            return "invoice_payment_failed", invoice_facts(obj)
        return None
    if (
        event_type in ("checkout.session.completed", "checkout.session.async_payment_succeeded")
        and obj.get("object") == "checkout.session"
        and obj.get("mode") == "subscription"
    ):
        # A trial's session completes with no payment required; both start the subscription.
        if obj.get("payment_status") in ("paid", "no_payment_required"):
            return "subscription_started", session_facts(obj)
        return "other", session_facts(obj)
    return None
