"""Stripe Billing, read and written as plain data: the Checkout Session of a subscription,
and what subscription and invoice events say.

Pure functions (no SDK calls), so the Stripe provider stays a thin transport and the
readings are testable on their own. Both shapes of Stripe's objects are read: the classic
one (`invoice.subscription`, `subscription.current_period_end`, `line.price`) and the one of
API versions from 2025-03-31 (`invoice.parent.subscription_details`, the period on the
subscription item, `line.pricing.price_details.price`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sors.payments.providers.base import (
    EventKind,
    SubscriptionCheckoutRequest,
    SubscriptionFacts,
)


def lookup_key(plan_id: str, interval: str) -> str:
    """The lookup key a Stripe price of a plan carries when no price id is configured."""
    return f"sors_{plan_id}_{interval}"


def metadata(account_id: str, plan_id: str, interval: str, session_id: str | None = None) -> dict:
    out = {"sors_account_id": account_id, "plan_id": plan_id, "interval": interval}
    if session_id:
        out["sors_session_id"] = session_id
    return out


def checkout_params(
    req: SubscriptionCheckoutRequest, price_id: str, expires_at: datetime
) -> dict[str, Any]:
    meta = metadata(req.account_id, req.plan_id, req.interval, req.session_id)
    subscription_data: dict[str, Any] = {"metadata": meta}
    if req.trial_days > 0:
        subscription_data["trial_period_days"] = req.trial_days
    params: dict[str, Any] = {
        "mode": "subscription",
        "line_items": [{"price": price_id, "quantity": 1}],
        "client_reference_id": req.session_id,
        "metadata": meta,
        "subscription_data": subscription_data,
        "success_url": req.success_url,
        "cancel_url": req.cancel_url,
        "expires_at": int(expires_at.timestamp()),
    }
    if req.customer_id:
        params["customer"] = req.customer_id
    elif req.email:
        params["customer_email"] = req.email
    return params


def _ts(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return datetime.fromtimestamp(int(value), UTC)


def _id(value: Any) -> str | None:
    """An id whether Stripe sent it bare or expanded into its object."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _first(items: Any) -> dict[str, Any]:
    data = _dict(items).get("data")
    return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}


def _from_metadata(meta: dict[str, Any]) -> dict[str, str | None]:
    def text(key: str) -> str | None:
        v = meta.get(key)
        return v if isinstance(v, str) and v else None

    return {
        "account_id": text("sors_account_id"),
        "plan_id": text("plan_id"),
        "interval": text("interval"),
    }


def subscription_facts(obj: dict[str, Any]) -> SubscriptionFacts:
    """A Stripe Subscription object."""
    item = _first(obj.get("items"))
    return SubscriptionFacts(
        subscription_id=_id(obj.get("id")),
        customer_id=_id(obj.get("customer")),
        status=obj.get("status") if isinstance(obj.get("status"), str) else None,
        cancel_at_period_end=bool(obj.get("cancel_at_period_end")),
        period_start=_ts(obj.get("current_period_start") or item.get("current_period_start")),
        period_end=_ts(obj.get("current_period_end") or item.get("current_period_end")),
        trial_end=_ts(obj.get("trial_end")),
        price_id=_id(_dict(item.get("price")).get("id") or item.get("price")),
        **_from_metadata(_dict(obj.get("metadata"))),
    )


def invoice_facts(obj: dict[str, Any]) -> SubscriptionFacts:
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
    reason = obj.get("billing_reason")
    return SubscriptionFacts(
        subscription_id=_id(obj.get("subscription")) or _id(details.get("subscription")),
        customer_id=_id(obj.get("customer")),
        period_start=_ts(period.get("start")),
        period_end=_ts(period.get("end")),
        price_id=price,
        invoice_id=_id(obj.get("id")),
        amount_paid_cents=amount if isinstance(amount, int) and amount >= 0 else None,
        billing_reason=reason if isinstance(reason, str) else None,
        **_from_metadata(_dict(details.get("metadata"))),
    )


def session_facts(obj: dict[str, Any]) -> SubscriptionFacts:
    """A completed Checkout Session in subscription mode."""
    return SubscriptionFacts(
        subscription_id=_id(obj.get("subscription")),
        customer_id=_id(obj.get("customer")),
        **_from_metadata(_dict(obj.get("metadata"))),
    )


_SUBSCRIPTION_EVENTS: dict[str, EventKind] = {
    "customer.subscription.created": "subscription_updated",
    "customer.subscription.updated": "subscription_updated",
    "customer.subscription.paused": "subscription_updated",
    "customer.subscription.resumed": "subscription_updated",
    "customer.subscription.deleted": "subscription_deleted",
    "customer.subscription.trial_will_end": "trial_will_end",
}


def read_event(event_type: str, obj: dict[str, Any]) -> tuple[EventKind, SubscriptionFacts] | None:
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
